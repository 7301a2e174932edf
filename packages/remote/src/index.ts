/**
 * Public surface of @acpkit/remote: serve an ACP agent (in-process or a stdio command) over WebSocket, connect to
 * one, and mirror one back to stdio. Every export here is public API: named exports only.
 */

export type {
  ProcessGroupChild,
  ProcessGroupExit,
  ProcessGroupStdio,
  SpawnProcessGroupOptions,
} from './child-process.js';
export { spawnProcessGroup } from './child-process.js';
export type { RemoteConnection } from './connect.js';
export { connectAcp } from './connect.js';
export {
  CloseCode,
  DEFAULT_HOST,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MOUNT_PATH,
  DEFAULT_OPEN_TIMEOUT_MS,
  DEFAULT_PING_INTERVAL_MS,
  DEFAULT_PORT,
  DEFAULT_STALL_TIMEOUT_MS,
  DEFAULT_TERMINATE_TIMEOUT_MS,
  HEALTH_PATH,
  MESSAGE_TOO_LARGE_ERROR_CODE,
  TRANSPORT_LATENCY_META_KEY,
  TRANSPORT_LOST_ERROR_CODE,
} from './constants.js';
export { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
export type { RemoteLogger } from './logger.js';
export { createStderrLogger, silentLogger } from './logger.js';
export type { ServerMetadata, ServerMetadataInput } from './metadata.js';
export {
  buildServerMetadata,
  fetchServerMetadata,
  metadataUrlFor,
  PACKAGE_VERSION,
} from './metadata.js';
export type { MirrorOptions } from './mirror.js';
export { applyHostOwnership, rewriteSessionCwd, runMirror } from './mirror.js';
export type { ServerPaths } from './mount-path.js';
export { buildServerPaths, normalizeMountPath } from './mount-path.js';
export type { CommandOptions, HostOwnership, ServeOptions, TransportOptions } from './options.js';
export { isLoopbackHost, tokensMatch } from './security.js';
export type { AgentAppSource, ConnectableAgentApp } from './serve-acp.js';
export { serveAcp } from './serve-acp.js';
export { serveCommand } from './serve-command.js';
export type { RemoteServer } from './server.js';
export { isUnstableMethod, UNSTABLE_METHODS } from './unstable-methods.js';
