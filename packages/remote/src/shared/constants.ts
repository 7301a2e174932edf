// The public constants of @acpkit/remote, grouped: the defaults of its options (RemoteDefaults), the fixed names and
// values its servers and mirror use on the wire (RemoteProtocol), WebSocket close codes (CloseCode) and the JSON-RPC
// error codes of the answers the relays write themselves (RelayErrorCode).

/**
 * The default of every option of `@acpkit/remote` that has one, keyed by the option's name (`drainGraceMs` is the
 * default `graceMs` of `drain()` and the CLIs' `--drain-timeout`). Frozen.
 *
 * @example
 * ```ts
 * await serveCommand(['node', 'agent.js'], { maxMessageBytes: RemoteDefaults.maxMessageBytes / 4 });
 * await runMirror(url, { pingIntervalMs: RemoteDefaults.pingIntervalMs * 2 });
 * ```
 */
export const RemoteDefaults = Object.freeze({
  /** Bind host: loopback only. */
  host: '127.0.0.1',
  /** TCP port of the servers (`0` picks any free port). */
  port: 8080,
  /** Mount path: metadata at `/acp`, WebSocket at `/acp/ws` (and `/acp`). */
  mountPath: '/acp',
  /** Limit for one message: a WebSocket payload, a POST body, an SSE event, an NDJSON line: 16 MiB. */
  maxMessageBytes: 16 * 1024 * 1024,
  /**
   * Cap on plain HTTP connections (not upgraded to WebSocket) a server holds at once: at the cap the oldest one with
   * no request in progress is closed, so idle sockets cannot exhaust file descriptors or lock out `/healthz`.
   */
  maxHttpConnections: 64,
  /**
   * Cap on the Streamable HTTP event streams (SSE responses) a server holds at once, over every connection: one more
   * GET gets 503, so readers cannot exhaust file descriptors whatever they do.
   */
  maxEventStreams: 1024,
  /** WebSocket ping interval (25 s, below the 60 s idle timeout of common proxies). A missed pong terminates. */
  pingIntervalMs: 25_000,
  /**
   * Stall timeout (60 s, as the ACP SDK's own server uses): a connection that makes no progress for this long while
   * something waits on its peer (data it does not read, messages it does not acknowledge) is closed with 1008 and a
   * logged reason, so a peer that stops reading or acknowledging cannot hold a relay forever.
   */
  stallTimeoutMs: 60_000,
  /** Deadline for opening a client connection: the metadata fetch and the open (upgrade or probe) together. */
  openTimeoutMs: 10_000,
  /**
   * Resume window (60 s): how long a server keeps a session whose client dropped uncleanly, agent included, for the
   * client to resume it.
   */
  resumeWindowMs: 60_000,
  /**
   * Replay buffer bound per side of a resumable session (16 MiB): the bytes of sent messages kept until the peer
   * acknowledges them.
   */
  resumeBufferBytes: 16 * 1024 * 1024,
  /** How long a client whose server was lost keeps trying to reach it again to carry the editor's sessions (60 s). */
  reconnectTimeoutMs: 60_000,
  /**
   * Detached sessions a server keeps at once (client dropped, waiting for a resume, agent included): one more ends
   * the oldest, so parked sessions cannot pile up while clients hold no socket.
   */
  maxDetachedSessions: 64,
  /**
   * Requests from one peer that wait for an answer at once (`serveAcp` and `connectAcp`: requests on the SDK stream;
   * the mirror: the editor's requests to the remote): one more is answered with a JSON-RPC error at once.
   */
  maxPendingRequests: 256,
  /** Grace period for each teardown step of a `serveCommand` child (after stdin EOF, after SIGTERM). */
  terminateTimeoutMs: 5_000,
  /**
   * Grace period of `RemoteServer.drain()` and of the CLIs' `--drain-timeout`: how long open connections may go on
   * after a drain starts before they are closed with 1001 (30 s, Kubernetes' default
   * `terminationGracePeriodSeconds`).
   */
  drainGraceMs: 30_000,
} as const);

/**
 * The fixed names and values the servers and the mirror use on the wire: routes outside the mount path, the
 * `Retry-After` of a draining server, and the `_meta` key of the mirror's transport timings. Frozen.
 *
 * @example
 * ```ts
 * const ready = (await fetch(`http://127.0.0.1:${server.port}${RemoteProtocol.readinessPath}`)).ok;
 * const timings = notification.params._meta?.[RemoteProtocol.transportLatencyMetaKey];
 * ```
 */
export const RemoteProtocol = Object.freeze({
  /** Health route, always top level and never authenticated (Host and Origin rules still apply). */
  healthPath: '/healthz',
  /**
   * Readiness route, always top level and never authenticated (Host and Origin rules still apply): `200 ok` while the
   * server accepts connections, `503` once it drains or closes. Point a load balancer's or Kubernetes' readiness
   * probe here and the liveness probe at `healthPath`.
   */
  readinessPath: '/readyz',
  /** Prometheus metrics route of a server started with `metrics: true` (behind the bearer token when one is set). */
  metricsPath: '/metrics',
  /**
   * `Retry-After` (seconds) of the 503 a draining server answers new connections (WebSocket upgrades, Streamable HTTP `initialize`) with: short, because a load
   * balancer sends the retry to another instance.
   */
  drainRetryAfterSeconds: 1,
  /** `_meta` key under which the mirror puts transport timings on relayed `session/update` notifications. */
  transportLatencyMetaKey: 'acpkit.dev/transport-latency',
} as const);

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
 * JSON-RPC error codes of the answers the relays write themselves (the standard codes, with these meanings).
 *
 * @example
 * ```ts
 * if (response.error?.code === RelayErrorCode.TransportLost) reconnect();
 * if (response.error?.code === RelayErrorCode.MessageTooLarge) splitTheUpload();
 * ```
 */
export const RelayErrorCode = {
  /** The mirror answers in-flight requests with it when the upstream connection is lost (Internal error). */
  TransportLost: -32603,
  /** The answer to an oversized request (Invalid Request; `data` names the limit). */
  MessageTooLarge: -32600,
  /**
   * The answer to a request past `maxPendingRequests` requests waiting for an answer (Internal error, like
   * `TransportLost`: `data.reason` is `"too_many_pending_requests"`); it never reached the agent.
   */
  TooManyPendingRequests: -32603,
  /**
   * `serveCommand`'s answer to `initialize` when its agent writes text that is not JSON-RPC and does not answer within
   * a few seconds (Internal error: `data.reason` is `"agent_not_speaking_acp"`); the connection then closes.
   */
  AgentNotSpeakingAcp: -32603,
} as const;

/** Union of the numeric values of {@link RelayErrorCode}. */
export type RelayErrorCode = (typeof RelayErrorCode)[keyof typeof RelayErrorCode];
