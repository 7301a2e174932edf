// The option types of the public API: ConnectOptions, MirrorOptions, ServeOptions, CommandOptions.
import type { Readable, Writable } from 'node:stream';
import type { CookieStore } from '../shared/cookie-store.js';
import type { RemoteLogger } from '../shared/logger.js';
import type { ConnectionEvent } from './connection-events.js';

/**
 * Who owns host-backed capabilities (file system, terminal) when the mirror relays `initialize`.
 * `remote` (default): the remote host does, so `fs` read/write and `terminal` are set false; every other field
 * (elicitation included) is kept. `client-passthrough`: the client's capabilities pass unchanged.
 *
 * @example
 * ```ts
 * const ownership: HostOwnership = 'client-passthrough';
 * ```
 */
export type HostOwnership = 'remote' | 'client-passthrough';

/**
 * Options of a client connection: {@link connectAcp}, and the connection part of {@link runMirror}.
 *
 * @example
 * ```ts
 * const options: ConnectOptions = { bearerToken: process.env.ACP_TOKEN, openTimeoutMs: 5_000 };
 * ```
 */
export interface ConnectOptions {
  /** Limit for one WebSocket payload and one NDJSON line (default 16 MiB). */
  maxMessageBytes?: number;
  /** Ping interval; a missed pong terminates the socket (default 25 000; `0` disables). */
  pingIntervalMs?: number;
  /** One deadline for the metadata fetch and the WebSocket open together (default 10 000). */
  openTimeoutMs?: number;
  /** Extra HTTP headers for the upgrade request and the metadata fetch. */
  headers?: Record<string, string>;
  /**
   * Bearer token sent as `Authorization: Bearer <token>`: visible ASCII only (what an HTTP header can carry);
   * blank is an error.
   */
  bearerToken?: string;
  /** Extra trusted CA certificates (PEM) for `wss://`, e.g. a private CA or a self-signed server certificate. */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * Offer resume (the `acpkit.resume.v1` subprotocol, default true): when the server agrees, a connection that
   * drops uncleanly is reconnected with backoff within the server's resume window and both sides replay what the
   * other missed, so the stream goes on as if nothing happened. Servers without it see a plain connection.
   */
  resume?: boolean;
  /**
   * Which resume a WebSocket connection dials when `resume` is on (default `auto`; Streamable HTTP always dials the
   * durable-resume draft's `Last-Event-ID`):
   * - `auto`: offer `acpkit.resume.v1`; when the server does not select it but is an RFD WebSocket (its 101 names an
   *   `Acp-Connection-Id`) whose `initialize` answer advertises `transport.resumable`, the draft's `stream/resume`.
   * - `acpkit`: `acpkit.resume.v1` only (never `stream/resume`).
   * - `durable-resume`: the draft only: `acpkit.resume.v1` is not offered, so even our server serves the RFD
   *   WebSocket (at `<mount>`) with cursors.
   */
  resumeWire?: ResumeWireChoice;
  /**
   * Most bytes of sent messages kept until the server acknowledges them, plus one message of up to `maxMessageBytes`
   * that does not fit (default 16 MiB). Past that the oldest are dropped (logged) and a resume needing them fails;
   * while reconnecting, what feeds the connection waits when it is full.
   */
  resumeBufferBytes?: number;
  /**
   * Close the connection when it makes no progress for this long while something waits on the server: data it
   * does not read, or (resume) messages it does not acknowledge: 1008 with a reason, logged (default 60 000; `0`
   * disables).
   */
  stallTimeoutMs?: number;
  /**
   * Requests that wait for an answer at once: `connectAcp`, from the server to the app on the stream; `runMirror`,
   * from the editor to the remote agent (default 256). One more is answered at once with a JSON-RPC error (-32603,
   * `data.reason` `"too_many_pending_requests"`) and not delivered.
   */
  maxPendingRequests?: number;
  /**
   * Carry the editor's sessions across a lost server (default true): when the connection ends and cannot be resumed
   * (a refused or impossible resume, a server that is gone, restarted or drained) while sessions are open, reconnect
   * with backoff, `initialize` again with the editor's params and open every session again with `session/resume`
   * (when the agent advertises it) or `session/load` (its replayed history withheld from the editor), so the
   * editor's session ids stay valid; requests in flight at the cut are answered with an error (-32603, `data.reason`
   * `"session_carried"`). Needs an agent that keeps its sessions where the new connection finds them (a shared
   * session store). Not after this side's close, the agent's exit (4000/4001) or a close for a message at fault.
   */
  carrySessions?: boolean;
  /**
   * How long a client whose server was lost keeps trying to reach it again to carry the sessions (default 60 000);
   * then the connection ends.
   */
  reconnectTimeoutMs?: number;
  /** Told when the connection drops, is resumed, or cannot be resumed (see {@link ConnectionEvent}). */
  onConnectionEvent?: (event: ConnectionEvent) => void;
  /** Diagnostics (default: one line per event on stderr). */
  logger?: RemoteLogger;
  /**
   * Which transport to speak (default `auto`): `auto` follows the URL's scheme (`http(s)://`: ACP's Streamable HTTP;
   * `ws(s)://`: WebSocket, ours at `<mount>/ws` or the RFD WebSocket at `<mount>`); the others force one and convert
   * the scheme (`http` ↔ `ws`, `https` ↔ `wss`), keeping the path.
   */
  transport?: TransportChoice;
  /**
   * Where the connection keeps the cookies its server (or load balancer) sets, sent back on every request of the
   * connection (default: a fresh `MemoryCookieStore` per connection). Pass one store to several connections to
   * keep load-balancer affinity across reconnects.
   */
  cookieStore?: CookieStore;
}

/**
 * The transport a client speaks: `auto` (by the URL's scheme), `streamable-http` or `websocket`.
 *
 * @example
 * ```ts
 * await connectAcp('http://127.0.0.1:8080/acp', { transport: 'websocket' }); // ws://127.0.0.1:8080/acp
 * ```
 */
export type TransportChoice = 'auto' | 'streamable-http' | 'websocket';

/**
 * The resume a WebSocket client dials (`ConnectOptions.resumeWire`): `auto`, `acpkit` (`acpkit.resume.v1`) or
 * `durable-resume` (ACP's durable-resume draft: `stream/resume` on the RFD WebSocket).
 *
 * @example
 * ```ts
 * await connectAcp('ws://127.0.0.1:8080/acp', { resumeWire: 'durable-resume' });
 * ```
 */
export type ResumeWireChoice = 'auto' | 'acpkit' | 'durable-resume';

/**
 * Options of {@link runMirror}: the connection options plus the mirror's own policy and its stdio streams.
 *
 * @example
 * ```ts
 * const options: MirrorOptions = { useUnstableProtocol: true, input: process.stdin, output: process.stdout };
 * ```
 */
export interface MirrorOptions extends ConnectOptions {
  /** Relay methods the SDK defines only in `/unstable` (default false: the mirror answers them `-32601`). */
  useUnstableProtocol?: boolean;
  /** Capability ownership applied to the relayed `initialize` (default `remote`). */
  hostOwnership?: HostOwnership;
  /** Add transport timings under `_meta["acpkit.dev/transport-latency"]` of relayed `session/update` (default false). */
  emitLatencyMeta?: boolean;
  /** Where the editor's NDJSON comes from (default `process.stdin`). */
  input?: Readable;
  /** Where JSON-RPC to the editor goes (default `process.stdout`); nothing else is ever written to it. */
  output?: Writable;
  /**
   * Ends the mirror as the end of `input` would: reading stops, answers to requests already sent still reach
   * `output` (up to 5 s), then the socket closes with 1000 and the promise resolves 0.
   */
  signal?: AbortSignal;
}

/**
 * Options of {@link serveAcp} and {@link serveCommand}.
 *
 * @example
 * ```ts
 * const options: ServeOptions = { host: '127.0.0.1', port: 0, bearerToken: process.env.ACP_TOKEN };
 * ```
 */
export interface ServeOptions {
  /**
   * Bind host (default `127.0.0.1`); an IPv6 address may be bracketed (`[::1]`). A non-loopback host needs
   * `bearerToken` or `allowUnauthenticated`.
   */
  host?: string;
  /** TCP port (default 8080; `0` = any free port). */
  port?: number;
  /** Mount path (default `/acp`), normalised: trimmed, one leading `/`, no trailing `/`. */
  mountPath?: string;
  /** Required bearer token: visible ASCII only (what an HTTP header can carry); blank is an error, not "auth off". */
  bearerToken?: string;
  /** Allow a non-loopback bind without a token (dangerous). */
  allowUnauthenticated?: boolean;
  /** Allowed `Origin` values; a present Origin not listed gets 403 (default: none). */
  allowedOrigins?: string[];
  /** Extra `Host` names accepted when bound to loopback (DNS-rebinding protection). */
  allowedHosts?: string[];
  /** Maximum concurrent WebSocket connections; over it the upgrade gets 503 (default unlimited). */
  maxConnections?: number;
  /**
   * Maximum plain HTTP connections (not upgraded to WebSocket) held open at once, idle keep-alive and half-sent
   * requests included: at the cap, the oldest one with no request in progress is closed to make room, so a flood of
   * idle sockets cannot use up the server's file descriptors or lock out `/healthz` (default 64).
   */
  maxHttpConnections?: number;
  /**
   * Maximum Streamable HTTP event streams (SSE responses, over every connection) held open at once, responses ending
   * included; one more GET gets 503 (default 1024). Keep it, with `maxHttpConnections` and the agents' pipes, below
   * the process's file-descriptor limit.
   */
  maxEventStreams?: number;
  /**
   * This instance's name among several behind one load balancer: every connection id it issues
   * (`Acp-Connection-Id`) and every resume token (`Acpkit-Resume-Token`) starts with `<instanceId>.`, so a proxy can
   * route each request of a Streamable HTTP connection, and a WebSocket's resume, to the instance holding it
   * (docs/remote-transport.md, "Several instances behind a load balancer").
   * 1 to 32 characters of `A-Z a-z 0-9 _ -`. Default: none (ids are bare UUIDs).
   */
  instanceId?: string;
  /** Limit for one WebSocket payload and one NDJSON line (default 16 MiB). */
  maxMessageBytes?: number;
  /** Ping interval; a missed pong terminates the socket (default 25 000; `0` disables). */
  pingIntervalMs?: number;
  /**
   * Close a connection that makes no progress for this long while something waits on its client: data it does not
   * read, or (resume) messages it does not acknowledge. 1008 with a reason that says which, and a warning on the
   * logger (default 60 000; `0` disables).
   */
  stallTimeoutMs?: number;
  /**
   * How long a session whose client dropped uncleanly (no close frame) is kept, agent included, for the client to
   * resume it (default 60 000; `0` turns resume off: the server then never selects the `acpkit.resume.v1`
   * subprotocol). Only a session whose agent answered `initialize` is kept. Detached sessions count against
   * `maxConnections`.
   */
  resumeWindowMs?: number;
  /**
   * Most detached sessions (client dropped, waiting for a resume, agent included) the server keeps at once (default
   * 64; `0` keeps none): one more ends the oldest of them, whose resume is then refused as `ended`.
   */
  maxDetachedSessions?: number;
  /**
   * Most bytes of sent messages a session keeps until the client acknowledges them, plus one message of up to
   * `maxMessageBytes` that does not fit (default 16 MiB). Past that the oldest are dropped (logged): the session
   * goes on, but cannot be resumed until the client acknowledges past them. While the client is away, reading the
   * agent pauses when it is full, so a detached session holds at most about this much.
   */
  resumeBufferBytes?: number;
  /**
   * `serveAcp`: most requests from one client that wait for the agent's answer at once (default 256); each one past
   * it is answered at once with a JSON-RPC error (-32603, `data.reason` `"too_many_pending_requests"`) and never
   * reaches the agent. `serveCommand` keeps nothing per request (its agent process does).
   */
  maxPendingRequests?: number;
  /** Reported in metadata as `unstable_protocol` (the server relays frames; policy is the client's). */
  useUnstableProtocol?: boolean;
  /** Reported in metadata as `remote_cwd` (serveCommand defaults it to the command's cwd). */
  remoteCwd?: string;
  /** Where diagnostics go (default: one line per event on stderr; never stdout). */
  logger?: RemoteLogger;
  /** Serve HTTPS / `wss://` with this PEM key and certificate (default: plain HTTP / `ws://`). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /**
   * Serve Prometheus metrics at `/metrics` on the server's port (default false): behind the bearer token when one
   * is set, under the same Host and Origin rules as every route. Each server has its own registry.
   */
  metrics?: boolean;
}

/**
 * Options of the child process started by {@link serveCommand} for each connection.
 *
 * @example
 * ```ts
 * const options: CommandOptions = { cwd: '/srv/project', env: { LOG_LEVEL: 'debug' }, stderr: 'discard' };
 * ```
 */
export interface CommandOptions {
  /** Working directory of the child (default: the server's cwd). */
  cwd?: string;
  /** Added to the inherited environment; `''` values are allowed. */
  env?: Record<string, string>;
  /** Variable names removed from the inherited environment (e.g. the one holding the server's token). */
  unsetEnv?: readonly string[];
  /** What happens to the child's stderr (default `inherit`). */
  stderr?: 'inherit' | 'discard';
  /** Grace period of each teardown step: after stdin EOF, then after SIGTERM (default 5 000). */
  terminateTimeoutMs?: number;
}
