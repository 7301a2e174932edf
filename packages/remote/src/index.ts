/**
 * Public surface of @acpkit/remote: serve an ACP agent (in-process or a stdio command) over Streamable HTTP and
 * WebSocket, connect to one, and mirror one back to stdio. Every export here is public API: named exports only. What
 * only the CLIs share with this package lives in `@acpkit/remote/internal` (src/internal.ts), which is not public API.
 */

export type { RemoteConnection } from './client/connect.js';
export { connectAcp } from './client/connect.js';
export { runMirror } from './client/mirror.js';
export type { ConnectionEvent, ResumeFailureReason } from './options/connection-events.js';
export type { ServerPaths } from './options/mount-path.js';
export { AcpRemoteOptionError } from './options/option-error.js';
export type {
  CommandOptions,
  ConnectOptions,
  HostOwnership,
  MirrorOptions,
  ResumeWireChoice,
  ServeOptions,
  TransportChoice,
} from './options/options.js';
export type {
  ProcessGroupChild,
  ProcessGroupExit,
  ProcessGroupStdio,
  SpawnProcessGroupOptions,
} from './server/child-process.js';
export { spawnProcessGroup } from './server/child-process.js';
export type { CloseOptions, DrainOptions, DrainResult, RemoteServer } from './server/remote-server-api.js';
export type { AgentAppSource, ConnectableAgentApp } from './server/serve-acp.js';
export { serveAcp } from './server/serve-acp.js';
export { serveCommand } from './server/serve-command.js';
export { CloseCode, RelayErrorCode, RemoteDefaults, RemoteProtocol } from './shared/constants.js';
export type { CookieStore } from './shared/cookie-store.js';
export { MemoryCookieStore } from './shared/cookie-store.js';
export type { ResumableRetention, TurnState } from './shared/durable-resume.js';
export { AcpRemoteError, AcpRemoteErrorCode, ResumeRefusedError } from './shared/errors.js';
export type { LogOutput, RemoteLogger } from './shared/logger.js';
export { createStderrLogger, silentLogger } from './shared/logger.js';
export type { ServerMetadata } from './wire/server-metadata.js';
export { fetchServerMetadata, metadataUrlFor } from './wire/server-metadata.js';
