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
export type { ConnectionEvent, ResumeFailureReason } from './connection-events.js';
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
} from './constants.js';
export {
  applyHostOwnership,
  PACKAGE_VERSION,
  rewriteSessionCwd,
  tokensMatch,
} from './deprecated-exports.js';
export { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
export type { LogOutput, RemoteLogger } from './logger.js';
export { createStderrLogger, silentLogger } from './logger.js';
export type { ServerMetadata, ServerMetadataInput } from './metadata.js';
export { buildServerMetadata, fetchServerMetadata, metadataUrlFor } from './metadata.js';
export { runMirror } from './mirror.js';
export type { ServerPaths } from './mount-path.js';
export { buildServerPaths, normalizeMountPath } from './mount-path.js';
export type {
  CommandOptions,
  ConnectOptions,
  HostOwnership,
  MirrorOptions,
  ServeOptions,
  TransportOptions,
} from './options.js';
export { RESUME_SUBPROTOCOL } from './resume-protocol.js';
export { isLoopbackHost } from './security.js';
export type { AgentAppSource, ConnectableAgentApp } from './serve-acp.js';
export { serveAcp } from './serve-acp.js';
export { serveCommand } from './serve-command.js';
export type { CloseOptions, DrainOptions, DrainResult, RemoteServer } from './server.js';
export { isUnstableMethod, UNSTABLE_METHODS } from './unstable-methods.js';
