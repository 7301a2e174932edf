/**
 * Public surface of @acpkit/remote: serve an ACP agent (in-process or a stdio command) over WebSocket, connect to
 * one, and mirror one back to stdio. Every export here is public API: named exports only.
 */

export type { RemoteConnection } from './client/connect.js';
export { connectAcp } from './client/connect.js';
export { runMirror } from './client/mirror.js';
export {
  applyHostOwnership,
  PACKAGE_VERSION,
  rewriteSessionCwd,
  tokensMatch,
} from './deprecated-exports.js';
export type { ConnectionEvent, ResumeFailureReason } from './options/connection-events.js';
export type { ServerPaths } from './options/mount-path.js';
export { buildServerPaths, normalizeMountPath } from './options/mount-path.js';
export type {
  CommandOptions,
  ConnectOptions,
  HostOwnership,
  MirrorOptions,
  ServeOptions,
  TransportOptions,
} from './options/options.js';
export { RESUME_SUBPROTOCOL } from './resume/resume-protocol.js';
export type {
  ProcessGroupChild,
  ProcessGroupExit,
  ProcessGroupStdio,
  SpawnProcessGroupOptions,
} from './server/child-process.js';
export { spawnProcessGroup } from './server/child-process.js';
export type { CloseOptions, DrainOptions, DrainResult, RemoteServer } from './server/remote-server.js';
export type { AgentAppSource, ConnectableAgentApp } from './server/serve-acp.js';
export { serveAcp } from './server/serve-acp.js';
export { serveCommand } from './server/serve-command.js';
export {
  CloseCode,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_HOST,
  DEFAULT_MAX_HTTP_CONNECTIONS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MOUNT_PATH,
  DEFAULT_OPEN_TIMEOUT_MS,
  DEFAULT_PING_INTERVAL_MS,
  DEFAULT_PORT,
  DEFAULT_RESUME_BUFFER_BYTES,
  DEFAULT_RESUME_WINDOW_MS,
  DEFAULT_STALL_TIMEOUT_MS,
  DEFAULT_TERMINATE_TIMEOUT_MS,
  DRAIN_RETRY_AFTER_SECONDS,
  HEALTH_PATH,
  MESSAGE_TOO_LARGE_ERROR_CODE,
  METRICS_PATH,
  READINESS_PATH,
  TRANSPORT_LATENCY_META_KEY,
  TRANSPORT_LOST_ERROR_CODE,
} from './shared/constants.js';
export { AcpRemoteError, AcpRemoteErrorCode } from './shared/errors.js';
export { isLoopbackHost } from './shared/http-headers.js';
export type { LogOutput, RemoteLogger } from './shared/logger.js';
export { createStderrLogger, silentLogger } from './shared/logger.js';
export { isUnstableMethod, UNSTABLE_METHODS } from './shared/unstable-methods.js';
export type { ServerMetadata, ServerMetadataInput } from './wire/server-metadata.js';
export { buildServerMetadata, fetchServerMetadata, metadataUrlFor } from './wire/server-metadata.js';
