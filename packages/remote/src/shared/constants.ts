/**
 * Default limit for one WebSocket payload and one NDJSON line: 16 MiB.
 *
 * @example
 * ```ts
 * await serveCommand(['node', 'agent.js'], { maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES / 4 });
 * ```
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Default WebSocket ping interval (25 s, below the 60 s idle timeout of common proxies). A missed pong terminates.
 *
 * @example
 * ```ts
 * await runMirror(url, { pingIntervalMs: DEFAULT_PING_INTERVAL_MS * 2 });
 * ```
 */
export const DEFAULT_PING_INTERVAL_MS = 25_000;

/**
 * Default send-stall timeout (60 s, as the ACP SDK's own server uses): a peer whose socket accepted nothing for this
 * long is closed with 1008 and a logged reason, so a client that stops reading cannot hold a relay forever.
 *
 * @example
 * ```ts
 * await serveCommand(argv, { stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS / 2 });
 * ```
 */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

/**
 * Default resume window (60 s): how long a server keeps a session whose client dropped uncleanly, agent included,
 * for the client to resume it.
 *
 * @example
 * ```ts
 * await serveCommand(argv, { resumeWindowMs: DEFAULT_RESUME_WINDOW_MS * 5 });
 * ```
 */
export const DEFAULT_RESUME_WINDOW_MS = 60_000;

/**
 * Default replay buffer bound per side of a resumable session (16 MiB): the bytes of sent messages kept until the
 * peer acknowledges them.
 *
 * @example
 * ```ts
 * await connectAcp(url, { resumeBufferBytes: DEFAULT_RESUME_BUFFER_BYTES / 4 });
 * ```
 */
export const DEFAULT_RESUME_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Default deadline for opening a client connection: the metadata fetch and the WebSocket open together.
 *
 * @example
 * ```ts
 * await connectAcp(url, { openTimeoutMs: DEFAULT_OPEN_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_OPEN_TIMEOUT_MS = 10_000;

/**
 * Default grace period for each teardown step of a `serveCommand` child (after stdin EOF, after SIGTERM).
 *
 * @example
 * ```ts
 * await serveCommand(argv, { terminateTimeoutMs: DEFAULT_TERMINATE_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_TERMINATE_TIMEOUT_MS = 5_000;

/**
 * Default cap on plain HTTP connections (not upgraded to WebSocket) a server holds at once: at the cap the oldest
 * one with no request in progress is closed, so idle sockets cannot exhaust file descriptors or lock out `/healthz`.
 *
 * @example
 * ```ts
 * await serveCommand(argv, { maxHttpConnections: DEFAULT_MAX_HTTP_CONNECTIONS * 2 });
 * ```
 */
export const DEFAULT_MAX_HTTP_CONNECTIONS = 64;

/**
 * Default bind host: loopback only.
 *
 * @example
 * ```ts
 * await serveCommand(argv, { host: DEFAULT_HOST });
 * ```
 */
export const DEFAULT_HOST = '127.0.0.1';

/**
 * Default TCP port of the servers (`0` picks any free port).
 *
 * @example
 * ```ts
 * await serveCommand(argv, { port: DEFAULT_PORT });
 * ```
 */
export const DEFAULT_PORT = 8080;

/**
 * Default mount path: metadata at `/acp`, WebSocket at `/acp/ws` (and `/acp`).
 *
 * @example
 * ```ts
 * normalizeMountPath(DEFAULT_MOUNT_PATH); // '/acp'
 * ```
 */
export const DEFAULT_MOUNT_PATH = '/acp';

/**
 * Health route, always top level and never authenticated (Host and Origin rules still apply).
 *
 * @example
 * ```ts
 * await fetch(`http://127.0.0.1:${server.port}${HEALTH_PATH}`);
 * ```
 */
export const HEALTH_PATH = '/healthz';

/**
 * Readiness route, always top level and never authenticated (Host and Origin rules still apply): `200 ok` while the
 * server accepts connections, `503` once it drains or closes. Point a load balancer's or Kubernetes' readiness
 * probe here and the liveness probe at {@link HEALTH_PATH}.
 *
 * @example
 * ```ts
 * const ready = (await fetch(`http://127.0.0.1:${server.port}${READINESS_PATH}`)).ok;
 * ```
 */
export const READINESS_PATH = '/readyz';

/**
 * Prometheus metrics route of a server started with `metrics: true` (behind the bearer token when one is set).
 *
 * @example
 * ```ts
 * const text = await (await fetch(`http://127.0.0.1:${server.port}${METRICS_PATH}`)).text();
 * ```
 */
export const METRICS_PATH = '/metrics';

/**
 * Default grace period of `RemoteServer.drain()` and of the CLIs' `--drain-timeout`: how long open connections may
 * go on after a drain starts before they are closed with 1001 (30 s, Kubernetes' default
 * `terminationGracePeriodSeconds`).
 *
 * @example
 * ```ts
 * await server.drain({ graceMs: DEFAULT_DRAIN_GRACE_MS });
 * ```
 */
export const DEFAULT_DRAIN_GRACE_MS = 30_000;

/**
 * `Retry-After` (seconds) of the 503 a draining server answers new WebSocket upgrades with: short, because a load
 * balancer sends the retry to another instance.
 *
 * @example
 * ```ts
 * if (response.status === 503) await delay(DRAIN_RETRY_AFTER_SECONDS * 1000);
 * ```
 */
export const DRAIN_RETRY_AFTER_SECONDS = 1;

/**
 * `_meta` key under which the mirror puts transport timings on relayed `session/update` notifications.
 *
 * @example
 * ```ts
 * const timings = notification.params._meta?.[TRANSPORT_LATENCY_META_KEY];
 * ```
 */
export const TRANSPORT_LATENCY_META_KEY = 'acpkit.dev/transport-latency';

/**
 * WebSocket close codes used by the servers and the mirror.
 *
 * @example
 * ```ts
 * const { code } = await connection.closed;
 * if (code === CloseCode.AgentExited) console.error('the remote agent process exited');
 * ```
 */
export const CloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  /** A violation of the resume protocol (a malformed control frame, an ack for frames never sent). */
  ProtocolError: 1002,
  UnsupportedData: 1003,
  InvalidPayload: 1007,
  PolicyViolation: 1008,
  MessageTooBig: 1009,
  InternalError: 1011,
  /** The agent process behind `serveCommand` exited; the reason names its exit code or signal. */
  AgentExited: 4000,
  /** The agent process could not be started; the reason names the error. */
  AgentSpawnFailed: 4001,
  /**
   * A client ends a resumed connection it cannot continue: the server no longer holds frames the client missed, or
   * the client no longer holds frames the server missed (reason `overflow: ...`).
   */
  ResumeFailed: 4002,
} as const;

/** Union of the numeric values of {@link CloseCode}. */
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/**
 * JSON-RPC error code the mirror answers in-flight requests with when the upstream connection is lost.
 *
 * @example
 * ```ts
 * if (response.error?.code === TRANSPORT_LOST_ERROR_CODE) reconnect();
 * ```
 */
export const TRANSPORT_LOST_ERROR_CODE = -32603;

/**
 * JSON-RPC error code of the answer to an oversized request (Invalid Request; `data` names the limit).
 *
 * @example
 * ```ts
 * if (response.error?.code === MESSAGE_TOO_LARGE_ERROR_CODE) splitTheUpload();
 * ```
 */
export const MESSAGE_TOO_LARGE_ERROR_CODE = -32600;
