// The HTTP + WebSocket server behind `serveAcp` and `serveCommand`, written as `ws`'s WebSocketServer is: a class
// whose state (running, draining, closing, closed) lives in one field, with one method per step: admission, the HTTP
// routes, the upgrade, the setup of each accepted socket, and the drain and close of its lifecycle.
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ServerPaths } from '../options/mount-path.js';
import { type ResolvedServeOptions, resolveGraceMs } from '../options/validation.js';
import { FrameLog } from '../relay/frame-log.js';
import type { FramePort, TransportLabel } from '../relay/frame-port.js';
import type { FrameRefusalReason } from '../relay/relay-metrics.js';
import { DetachedSessions } from '../sessions/detached-sessions.js';
import { CloseCode } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import {
  FIRST_STREAM_TIMEOUT_MS,
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_TIMEOUT_CHECK_INTERVAL_MS,
  hardPayloadCap,
  INITIALIZE_TIMEOUT_MS,
} from '../shared/fixed-limits.js';
import { type RemoteLogger, rateLimitLogger } from '../shared/logger.js';
import { CONNECTION_ID_HEADER } from '../streamable-http/protocol.js';
import { StreamableHttpEndpoint } from '../streamable-http/server/endpoint.js';
import { HttpServerPort } from '../streamable-http/server/http-server-port.js';
import { startHeartbeat } from '../websocket/heartbeat.js';
import { RESUME_REFUSED_HEADER, RESUME_SUBPROTOCOL } from '../websocket/resume/resume-protocol.js';
import { connectionIdentity, ResumeRegistry } from '../websocket/resume/resume-registry.js';
import { WebSocketPort } from '../websocket/websocket-port.js';
import { compileWatch, FrameScanner } from '../wire/frame-scan.js';
import { ROUTE_WATCH, type RouteKeys, readRouteKeys, routeNodesOf } from '../wire/route-keys.js';
import { buildServerMetadata, type ServerMetadata } from '../wire/server-metadata.js';
import {
  type AdmissionPhase,
  type AdmissionRules,
  decideNewConnection,
  decideRequest,
  decideUpgrade,
  type Refusal,
  requestPath,
  type UpgradeDecision,
} from './admission.js';
import { HttpConnectionCap } from './http-connection-cap.js';
import { clientErrorAnswer, HttpEndpoints, rejectUpgrade, respondRefusal } from './http-endpoints.js';
import {
  type BufferName,
  createMetricsEndpoint,
  type MetricsEndpoint,
  NO_METRICS,
  type ServerMetrics,
} from './metrics.js';

/**
 * A running WebSocket server returned by {@link serveAcp} and {@link serveCommand}.
 *
 * @example
 * ```ts
 * const server: RemoteServer = await serveCommand(['node', 'agent.js'], { port: 0 });
 * console.error(`Serving ACP WebSocket at ${server.url}`);
 * await server.close();
 * ```
 */
export interface RemoteServer {
  /** `ws://HOST:PORT<mount>/ws` with the real port: the acpremote wire (resume, Python `acpremote` clients). */
  readonly url: string;
  /**
   * `http://HOST:PORT<mount>` (`https://` with `tls`) with the real port: ACP's standard transport, Streamable HTTP
   * here and the RFD WebSocket at the same path as `ws(s)://` (what the ACP SDKs' clients connect to).
   */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  readonly paths: ServerPaths;
  /** The metadata document served at GET `<mount>`. */
  readonly metadata: ServerMetadata;
  /**
   * Number of connections: open WebSocket connections, plus sessions whose client dropped and that wait for a resume
   * (they hold their agent, and count against `maxConnections`).
   */
  readonly connectionCount: number;
  /**
   * Sessions whose client dropped and that wait for it (included in {@link connectionCount}): WebSocket sessions kept
   * for a resume, and Streamable HTTP connections none of whose streams has a reader. At most `maxDetachedSessions`.
   */
  readonly detachedCount: number;
  /**
   * True once {@link drain} or {@link close} began: new WebSocket upgrades are refused with 503 and `/readyz`
   * answers 503 (`/healthz` stays 200).
   */
  readonly draining: boolean;
  /**
   * Drains the server: new WebSocket upgrades get 503 with `Retry-After` (refusal reason `draining`), `/readyz`
   * answers 503, and open connections go on until they end by themselves or `graceMs` (default 30 s) passes; then
   * the rest are closed with 1001 and their children reaped. A session whose client dropped may still be resumed
   * during the drain (it is this instance's to finish); one whose client does not come back ends when its resume
   * window or the grace period runs out, whichever is first. HTTP routes keep answering until {@link close}, so a
   * final `/metrics` scrape still works. Idempotent: later calls return the first drain's promise.
   */
  drain(options?: DrainOptions): Promise<DrainResult>;
  /**
   * Stops the server: refuses new upgrades, closes every socket (1001), reaps every child and stops listening.
   * With `graceMs`, drains first ({@link drain}). Idempotent; a `close()` without `graceMs` during a drain ends the
   * drain at once.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Options of {@link RemoteServer.drain}.
 *
 * @example
 * ```ts
 * const options: DrainOptions = { graceMs: 10_000 };
 * ```
 */
export interface DrainOptions {
  /** How long open connections may go on before they are closed with 1001 (default 30 000; 0 closes them at once). */
  graceMs?: number;
}

/**
 * Options of {@link RemoteServer.close}.
 *
 * @example
 * ```ts
 * await server.close({ graceMs: 30_000 }); // drain, then stop
 * ```
 */
export interface CloseOptions {
  /** Drain for up to this long first (see {@link RemoteServer.drain}); without it, connections close at once. */
  graceMs?: number;
}

/**
 * How a drain ended.
 *
 * @example
 * ```ts
 * const { endedWithinGrace } = await server.drain();
 * process.exitCode = endedWithinGrace ? 0 : 143;
 * ```
 */
export interface DrainResult {
  /** Every connection ended by itself within the grace period (the CLIs then exit 0). */
  readonly endedWithinGrace: boolean;
  /** Connections still open when the grace period ran out (or `close()` cut the drain short), closed with 1001. */
  readonly closedConnections: number;
}

/**
 * One relayed connection: resolves `done` after everything it owns (child process included) is gone. A session
 * that outlives its socket (resume: a detached session waiting for its client to reconnect) stays in the server's
 * set until `done`, so a drain waits for it like for a connected one and `shutdown` must end it.
 */
export interface ConnectionSession {
  readonly done: Promise<void>;
  /** Requests from the client that wait for the agent's answer now (for the metrics; absent: none are kept). */
  readonly pendingRequests?: number;
  /**
   * Ends the connection because the server is shutting down or the drain grace ran out: 1001 with `reason` when a
   * socket is attached, at once when a resumable session waits for its client.
   */
  shutdown(reason: string): void;
}

/** Per-connection values handed to a connection handler. */
export interface ConnectionContext {
  readonly maxMessageBytes: number;
  /** Requests from the client that may wait for the agent's answer at once (where the handler keeps them). */
  readonly maxPendingRequests: number;
  readonly logger: RemoteLogger;
  readonly connectionId: number;
  /** The server's metrics ({@link NO_METRICS} when off; the connection's port counts its frames on it already). */
  readonly metrics: ServerMetrics;
  /** Per-frame warnings of the connection (rate-limited, carrying its id). */
  readonly log: FrameLog;
}

/** Close reason when the server stops (close() without a grace). */
const SHUTDOWN_REASON = 'server shutting down';
/** Close reason of the connections still open when a drain's grace period runs out. */
const DRAIN_EXPIRED_REASON = 'server shutting down: drain grace period ended';

/** `ws` error codes of frames it refuses itself, as frame-refusal metric reasons. */
const WS_ERROR_REASONS: Readonly<Record<string, FrameRefusalReason>> = {
  WS_ERR_INVALID_UTF8: 'invalid_utf8',
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 'oversize',
};

/**
 * Serves one connection on its port, whatever its transport (a WebSocket, on `<mount>/ws` or `<mount>`, or a
 * Streamable HTTP connection). The port is the server's: it carries resume when the client negotiated it, so a
 * handler sees one continuous connection whatever happens to the sockets or streams under it.
 */
export type ConnectionHandler = (port: FramePort, context: ConnectionContext) => ConnectionSession;

/** Refusals are logged at info, at most 10 lines per reason every 10 s (then one line with the count). */
const REFUSAL_LOG_LIMIT = {
  linesPerWindow: 10,
  windowMs: 10_000,
  keyOf: (message: string, fields: Record<string, unknown> | undefined) =>
    `${message} ${String(fields?.reason)}`,
};
const LOGGED_PATH_CHARACTERS = 200;

function loggedPath(request: IncomingMessage): string {
  const url = request.url ?? '';
  return url.length > LOGGED_PATH_CHARACTERS ? `${url.slice(0, LOGGED_PATH_CHARACTERS)}...` : url;
}

function formatUrlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function describeListenError(error: NodeJS.ErrnoException): string {
  if (error.code === 'EADDRINUSE') {
    return 'EADDRINUSE (the port is already in use; choose another port, or port 0 for any free one)';
  }
  if (error.code === 'EACCES')
    return 'EACCES (binding this port needs more privileges; choose a port above 1023)';
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return `${error.code} (no local interface has this address)`;
  }
  return error.code ?? error.message;
}

/**
 * Where a server is in its life: `running` accepts connections; `draining` refuses new ones (503 with
 * `Retry-After`) while open ones go on; `closing` refuses everything and closes what is open; `closed` listens no
 * more.
 */
type ServerState = 'running' | 'draining' | 'closing' | 'closed';

/**
 * The server shared by `serveAcp` and `serveCommand`: routes, security checks before the upgrade, connection caps,
 * HTTP timeouts, heartbeats, metrics, a drain, and an idempotent close that waits for every connection's teardown.
 * Every refusal is decided in admission.ts (one place, a stable reason each) and is logged rate-limited and counted
 * by `#recordRefusal`. Start one with {@link RemoteServerHost.start}.
 */
export class RemoteServerHost implements RemoteServer {
  readonly host: string;
  readonly paths: ServerPaths;
  readonly metadata: ServerMetadata;
  /** Set once listening (see {@link RemoteServerHost.start}). */
  url = '';
  endpoint = '';
  port = 0;

  #state: ServerState = 'running';
  readonly #resolved: ResolvedServeOptions;
  readonly #handleConnection: ConnectionHandler;
  readonly #logger: RemoteLogger;
  readonly #refusalLog: RemoteLogger;
  /**
   * Every connection until its teardown ends, detached resumable sessions included, with its port (its transport,
   * and what the buffer metrics add up at scrape time).
   */
  readonly #sessions = new Map<ConnectionSession, FramePort>();
  /** Upgrades admitted whose WebSocket handshake has not completed. */
  #pendingUpgrades = 0;
  #nextConnectionId = 1;
  /** Resume (`acpkit.resume.v1`) is offered unless the window is 0; tokens live in this registry only. */
  readonly #resumes: ResumeRegistry | undefined;
  /** Sessions waiting for their client, whatever their transport (`maxDetachedSessions`). */
  readonly #detached: DetachedSessions;
  #metricsEndpoint: MetricsEndpoint | undefined;
  #metrics: ServerMetrics = NO_METRICS;
  /** Admission's rules, the routes and the HTTP server: made in `start()`, before anyone sees the server. */
  #admissionRules!: AdmissionRules;
  #endpoints!: HttpEndpoints;
  /** ACP's Streamable HTTP on the mount path, and the connections it holds. */
  #streamableHttp!: StreamableHttpEndpoint;
  /** The `Acp-Connection-Id` of each RFD WebSocket upgrade in progress (on the mount path), for its 101. */
  readonly #webSocketConnectionIds = new WeakMap<IncomingMessage, string>();
  /** Reads the route keys of a frame a Streamable HTTP port sends without them (the relay's own answers). */
  readonly #routeWatch = compileWatch(ROUTE_WATCH);
  readonly #routeNodes = routeNodesOf(this.#routeWatch);
  readonly #routeScanner = new FrameScanner(this.#routeWatch);
  #httpServer!: HttpServer | HttpsServer;
  readonly #httpConnections: HttpConnectionCap;
  readonly #webSocketServer: WebSocketServer;
  /** The first drain's outcome (drain() is idempotent). */
  #drained: Promise<DrainResult> | undefined;
  /** The close in progress or done (close() is idempotent). */
  #closed: Promise<void> | undefined;
  /** Resolves when close begins: it cuts a drain in progress short. */
  readonly #closeStarted: Promise<'closed'>;
  #markCloseStarted: () => void = () => {};
  /** A drain waits for the last connection (and any upgrade in progress) to end. */
  readonly #idleWaiters = new Set<() => void>();

  /**
   * Starts a server: metrics (when on), then the HTTP server listening on the resolved host and port.
   *
   * @throws {@link AcpRemoteError} `LISTEN_FAILED` when the address cannot be bound.
   */
  static async start(
    resolved: ResolvedServeOptions,
    handleConnection: ConnectionHandler,
  ): Promise<RemoteServer> {
    const server = new RemoteServerHost(resolved, handleConnection);
    await server.#listen();
    return server;
  }

  private constructor(resolved: ResolvedServeOptions, handleConnection: ConnectionHandler) {
    this.#resolved = resolved;
    this.#handleConnection = handleConnection;
    this.#logger = resolved.logger;
    this.#refusalLog = rateLimitLogger(resolved.logger, REFUSAL_LOG_LIMIT);
    this.host = resolved.host;
    this.paths = resolved.paths;
    this.metadata = buildServerMetadata({
      paths: resolved.paths,
      authRequired: resolved.policy.bearerToken !== undefined,
      maxMessageBytes: resolved.maxMessageBytes,
      remoteCwd: resolved.remoteCwd,
      useUnstableProtocol: resolved.useUnstableProtocol,
    });
    // One bound for every transport's parked sessions (the metrics exist once the server started).
    this.#detached = new DetachedSessions(resolved.maxDetachedSessions, resolved.logger, () =>
      this.#metrics.limitReached('detached_sessions'),
    );
    this.#resumes =
      resolved.resumeWindowMs > 0
        ? new ResumeRegistry(
            {
              windowMs: resolved.resumeWindowMs,
              bufferBytes: resolved.resumeBufferBytes,
              messageBytes: resolved.maxMessageBytes,
            },
            this.#detached,
            resolved.logger,
          )
        : undefined;
    this.#closeStarted = new Promise<'closed'>((resolve) => {
      this.#markCloseStarted = () => resolve('closed');
    });
    this.#httpConnections = new HttpConnectionCap(resolved.maxHttpConnections, (socket) => {
      this.#metrics.requestRefused('limit');
      this.#refusalLog.info('idle connection closed to make room', {
        reason: 'limit',
        remoteAddress: socket.remoteAddress,
        maxHttpConnections: resolved.maxHttpConnections,
      });
    });
    const resumes = this.#resumes;
    this.#webSocketServer = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: hardPayloadCap(resolved.maxMessageBytes),
      // The resume subprotocol when resume is on; otherwise what `ws` always did (the first one offered), so a
      // client offering other subprotocols sees the same handshake as before.
      handleProtocols: (protocols: Set<string>) => {
        if (resumes !== undefined && protocols.has(RESUME_SUBPROTOCOL)) return RESUME_SUBPROTOCOL;
        for (const protocol of protocols) if (protocol !== RESUME_SUBPROTOCOL) return protocol;
        return false;
      },
    });
    // The RFD WebSocket's 101 carries its connection id, as the ACP SDKs' servers send it.
    this.#webSocketServer.on('headers', (headers: string[], request: IncomingMessage) => {
      const connectionId = this.#webSocketConnectionIds.get(request);
      if (connectionId !== undefined) headers.push(`${CONNECTION_ID_HEADER}: ${connectionId}`);
    });
    // drain and close work detached from the object too (`const { close } = server`), as they always did.
    this.drain = this.drain.bind(this);
    this.close = this.close.bind(this);
  }

  get connectionCount(): number {
    return this.#sessions.size;
  }

  get detachedCount(): number {
    return this.#detached.size;
  }

  get draining(): boolean {
    return this.#state !== 'running';
  }

  // --- Lifecycle: listen ---

  async #listen(): Promise<void> {
    const resolved = this.#resolved;
    if (resolved.metrics) {
      this.#metricsEndpoint = await createMetricsEndpoint({
        openConnections: (transport) => {
          let open = 0;
          for (const port of this.#sessions.values()) if (port.transport === transport) open += 1;
          return open;
        },
        draining: () => this.draining,
        detachedSessions: () => this.detachedCount,
        resumeCounters: this.#resumes?.counters,
        bufferedBytes: () => this.#bufferedBytes(),
        pendingRequests: () => {
          let pending = 0;
          for (const session of this.#sessions.keys()) pending += session.pendingRequests ?? 0;
          return pending;
        },
      });
      this.#metrics = this.#metricsEndpoint.metrics;
    }
    this.#admissionRules = {
      policy: resolved.policy,
      paths: resolved.paths,
      maxConnections: resolved.maxConnections,
      metricsServed: this.#metricsEndpoint !== undefined,
      resumes: this.#resumes,
    };
    this.#streamableHttp = new StreamableHttpEndpoint({
      maxMessageBytes: resolved.maxMessageBytes,
      allowedOrigins: resolved.policy.allowedOrigins,
      resumeWindowMs: resolved.resumeWindowMs,
      initializeTimeoutMs: INITIALIZE_TIMEOUT_MS,
      openConnection: (request, connectionId) => this.#openHttpConnection(request, connectionId),
      refused: (request, refusal) => this.#recordRefusal('http', refusal, request),
      // Its socket now belongs to the stream (bounded per connection), not to the plain-HTTP cap.
      streamStarted: (request) => this.#httpConnections.upgraded(request.socket),
    });
    this.#endpoints = new HttpEndpoints({
      paths: resolved.paths,
      metadataBody: `${JSON.stringify(this.metadata)}\n`,
      metricsEndpoint: this.#metricsEndpoint,
      logger: this.#logger,
      draining: () => this.draining,
    });
    // Node's defaults let a silent connection live 60-90 s; these bounds are documented in docs/remote-transport.md.
    const httpOptions = {
      requireHostHeader: false,
      headersTimeout: HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_INTERVAL_MS,
    };
    const onRequest = (request: IncomingMessage, response: ServerResponse) =>
      this.#onRequest(request, response);
    const httpServer = resolved.tls
      ? createHttpsServer(
          { ...resolved.tls, ...httpOptions, handshakeTimeout: HTTP_HEADERS_TIMEOUT_MS },
          onRequest,
        )
      : createServer(httpOptions, onRequest);
    this.#httpServer = httpServer;
    httpServer.on('connection', (socket: Socket) => this.#onConnection(socket));
    httpServer.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>) =>
      this.#onClientError(error, socket),
    );
    httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#onUpgrade(request, socket, head),
    );

    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(
          new AcpRemoteError(
            AcpRemoteErrorCode.ListenFailed,
            `cannot listen on ${formatUrlHost(resolved.host)}:${resolved.port}: ${describeListenError(error)}`,
            { cause: error },
          ),
        );
      };
      httpServer.once('error', onError);
      httpServer.listen(resolved.port, resolved.host, () => {
        httpServer.off('error', onError);
        resolve();
      });
    });
    httpServer.on('error', (error) => this.#logger.error('server error', { error: String(error) }));

    this.port = (httpServer.address() as AddressInfo).port;
    const authority = `${formatUrlHost(resolved.host)}:${this.port}`;
    this.url = `${resolved.tls ? 'wss' : 'ws'}://${authority}${resolved.paths.websocket}`;
    this.endpoint = `${resolved.tls ? 'https' : 'http'}://${authority}${resolved.paths.metadata}`;
  }

  // --- Admission ---

  get #admissionPhase(): AdmissionPhase {
    if (this.#state === 'running') return 'open';
    return this.#state === 'draining' ? 'draining' : 'shutting-down';
  }

  /** Logs (rate-limited) and counts a refusal admission made. */
  #recordRefusal(
    kind: 'upgrade' | 'http',
    refusal: Refusal,
    request: IncomingMessage,
    transport: TransportLabel = 'websocket',
  ): void {
    if (kind === 'upgrade') this.#metrics.connectionRefused(refusal.reason, transport);
    else this.#metrics.requestRefused(refusal.reason);
    this.#refusalLog.info(kind === 'upgrade' ? 'connection refused' : 'request refused', {
      reason: refusal.reason,
      status: refusal.status,
      remoteAddress: request.socket.remoteAddress,
      path: loggedPath(request),
      ...(refusal.reason === 'limit' ? { maxConnections: this.#resolved.maxConnections } : {}),
      ...(refusal.reason === 'resume' ? { resume: refusal.headers?.[RESUME_REFUSED_HEADER] } : {}),
    });
  }

  // --- HTTP: connections, routes, parser errors ---

  /** A new TCP (or TLS) connection: within the plain HTTP connection cap, or refused. */
  #onConnection(socket: Socket): void {
    if (this.#httpConnections.admit(socket)) return;
    socket.destroy();
    this.#metrics.requestRefused('limit');
    this.#refusalLog.info('connection refused', {
      reason: 'limit',
      remoteAddress: socket.remoteAddress,
      maxHttpConnections: this.#resolved.maxHttpConnections,
    });
  }

  #onRequest(request: IncomingMessage, response: ServerResponse): void {
    this.#httpConnections.requestStarted(request.socket);
    response.once('close', () => this.#httpConnections.requestFinished(request.socket));
    const decision = decideRequest(request, this.#admissionRules);
    if (!decision.ok) {
      this.#recordRefusal('http', decision, request);
      respondRefusal(response, decision);
      return;
    }
    if (
      requestPath(request) === this.paths.metadata &&
      this.#streamableHttp.handle(request, response) === 'handled'
    )
      return;
    this.#endpoints.serve(request, response);
  }

  /** A request the HTTP parser refused or that timed out: 408 or 400, never a crash. */
  #onClientError(error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    this.#metrics.requestRefused(timedOut ? 'timeout' : 'malformed');
    this.#refusalLog.info('request refused', {
      reason: timedOut ? 'timeout' : 'malformed',
      status: timedOut ? 408 : 400,
      remoteAddress: socket.remoteAddress,
      ...(timedOut ? {} : { error: error.code ?? error.message }),
    });
    socket.end(clientErrorAnswer(timedOut));
  }

  // --- Upgrade ---

  #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    this.#httpConnections.upgraded(request.socket);
    const decision = decideUpgrade(
      request,
      this.#admissionRules,
      this.#admissionPhase,
      this.#sessions.size + this.#pendingUpgrades,
    );
    if (!decision.ok) {
      this.#recordRefusal('upgrade', decision, request);
      rejectUpgrade(socket, decision);
      return;
    }
    this.#pendingUpgrades += 1;
    // An upgrade on the mount path is the RFD WebSocket (ACP's standard transport): its 101 names its connection.
    if (requestPath(request) === this.paths.metadata && decision.resume === undefined)
      this.#webSocketConnectionIds.set(request, globalThis.crypto.randomUUID());
    let upgraded = false;
    // handleUpgrade answers an invalid handshake itself (400) without calling back; release the slot then.
    socket.once('close', () => {
      if (!upgraded) {
        upgraded = true;
        this.#pendingUpgrades -= 1;
        this.#metrics.connectionRefused('malformed');
        this.#connectionEnded();
      }
    });
    this.#webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
      upgraded = true;
      this.#pendingUpgrades -= 1;
      this.#completeUpgrade(webSocket, request, decision);
    });
  }

  /** The handshake completed: a new connection, a resumed one, or (closing meanwhile) a 1001. */
  #completeUpgrade(
    webSocket: WebSocket,
    request: IncomingMessage,
    decision: Extract<UpgradeDecision, { ok: true }>,
  ): void {
    if (this.#state === 'closing' || this.#state === 'closed') {
      this.#metrics.connectionRefused('shutdown');
      webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
      this.#connectionEnded();
      return;
    }
    const resume = decision.resume;
    if (resume === undefined) {
      this.#openConnection(webSocket, request);
      return;
    }
    this.#prepareSocket(webSocket, resume.session.connectionId);
    this.#resumes?.attach(resume.session, webSocket, resume.received, request.socket.remoteAddress);
    this.#connectionEnded();
  }

  // --- Socket setup and connections ---

  /**
   * What every accepted socket gets, new or resumed: the size-limit close reason, an error listener and heartbeats
   * (each stops when that socket closes; the connection's port watches for stalls). Returns the heartbeat's stop.
   */
  #prepareSocket(webSocket: WebSocket, connectionId: number): () => void {
    const { maxMessageBytes, pingIntervalMs } = this.#resolved;
    const logger = this.#logger;
    const metrics = this.#metrics;
    // ws closes a message over its payload cap itself, with code 1009 and no reason; give that close the same
    // reason our own size check gives, so the peer learns the limit either way.
    const closeSocket = webSocket.close.bind(webSocket);
    webSocket.close = (code?: number, reason?: string | Buffer) =>
      closeSocket(
        code,
        code === CloseCode.MessageTooBig && (reason === undefined || reason.length === 0)
          ? `message exceeds the ${maxMessageBytes}-byte limit`
          : reason,
      );
    // ws reports protocol violations (invalid UTF-8, oversize) as 'error' before closing with 1007/1009;
    // without a listener they would crash the process.
    webSocket.on('error', (error: Error & { code?: string }) => {
      metrics.frameRefused('client', WS_ERROR_REASONS[error.code ?? ''] ?? 'protocol_error');
      logger.warn('WebSocket error', { connection: connectionId, error: error.code ?? error.message });
    });
    const stopHeartbeat = startHeartbeat(webSocket, pingIntervalMs, () => {
      metrics.heartbeatTimedOut();
      logger.warn('connection terminated: missed pong', { connection: connectionId });
    });
    return stopHeartbeat;
  }

  /** A new connection: its port (resumable when negotiated), handed to the connection handler. */
  #openConnection(webSocket: WebSocket, request: IncomingMessage): void {
    const { maxMessageBytes } = this.#resolved;
    const logger = this.#logger;
    const metrics = this.#metrics;
    const resumes = this.#resumes;
    metrics.connectionAccepted();
    const connectionId = this.#nextConnectionId++;
    const stopHeartbeat = this.#prepareSocket(webSocket, connectionId);
    logger.info('connection opened', {
      connection: connectionId,
      remoteAddress: request.socket.remoteAddress,
      ...(webSocket.protocol === RESUME_SUBPROTOCOL ? { resumable: true } : {}),
    });
    const log = new FrameLog(logger, { connection: connectionId });
    const port = new WebSocketPort(webSocket, {
      maxMessageBytes,
      log,
      peer: 'client',
      pauseWhenFull: true,
      metrics,
      stallTimeoutMs: this.#resolved.stallTimeoutMs,
      ...(this.#webSocketConnectionIds.has(request) ? { firstMessage: 'initialize' as const } : {}),
      ...(resumes !== undefined && webSocket.protocol === RESUME_SUBPROTOCOL
        ? { resume: resumes.open(connectionIdentity(request.headers), connectionId) }
        : {}),
    });
    let session: ConnectionSession;
    try {
      session = this.#handleConnection(port, this.#connectionContext(connectionId, log));
    } catch (error) {
      stopHeartbeat();
      logger.error('connection handler failed', { connection: connectionId, error: String(error) });
      port.close(CloseCode.InternalError, 'connection setup failed');
      port.terminate({ code: CloseCode.InternalError, reason: 'connection setup failed' });
      this.#connectionEnded();
      return;
    }
    this.#track(session, port, { connection: connectionId }, stopHeartbeat);
  }

  /** What a connection handler gets with its port, whatever the transport. */
  #connectionContext(connectionId: number, log: FrameLog): ConnectionContext {
    const { maxMessageBytes, maxPendingRequests } = this.#resolved;
    return {
      maxMessageBytes,
      maxPendingRequests,
      logger: this.#logger,
      connectionId,
      metrics: this.#metrics,
      log,
    };
  }

  /** Keeps `session` in the server's set until its teardown ends (a drain waits for it, a close ends it). */
  #track(
    session: ConnectionSession,
    port: FramePort,
    fields: Record<string, unknown>,
    stop: () => void = () => {},
  ): void {
    const logger = this.#logger;
    this.#sessions.set(session, port);
    void session.done
      .catch((error: unknown) => {
        logger.error('connection teardown failed', { ...fields, error: String(error) });
      })
      .finally(() => {
        stop();
        this.#sessions.delete(session);
        logger.info('connection closed', fields);
        this.#connectionEnded();
      });
  }

  /**
   * A Streamable HTTP `initialize` POST asks for a new connection: admission (shutdown, drain, the connection cap),
   * then its port, handed to the connection handler like a WebSocket's; or the refusal (logged and counted here).
   */
  #openHttpConnection(request: IncomingMessage, acpConnectionId: string): HttpServerPort | Refusal {
    const decision = decideNewConnection(
      this.#admissionRules,
      this.#admissionPhase,
      this.#sessions.size + this.#pendingUpgrades,
    );
    if (!decision.ok) {
      this.#recordRefusal('upgrade', decision, request, 'streamable_http');
      return decision;
    }
    const { maxMessageBytes, resumeBufferBytes, resumeWindowMs, pingIntervalMs, stallTimeoutMs } =
      this.#resolved;
    const logger = this.#logger;
    const metrics = this.#metrics;
    metrics.connectionAccepted('streamable_http');
    const connectionId = this.#nextConnectionId++;
    const fields = { connection: connectionId, transport: 'streamable_http' };
    logger.info('connection opened', { ...fields, remoteAddress: request.socket.remoteAddress });
    const log = new FrameLog(logger, { connection: connectionId });
    const port = new HttpServerPort({
      connectionId: acpConnectionId,
      log,
      metrics: metrics.forTransport('streamable_http'),
      // As a replay buffer: resumeBufferBytes plus one message, so one large event never costs a reader its resume.
      retention: { maxBytes: resumeBufferBytes + maxMessageBytes, windowMs: resumeWindowMs },
      keepAliveMs: pingIntervalMs,
      stallTimeoutMs,
      firstStreamTimeoutMs: FIRST_STREAM_TIMEOUT_MS,
      // A client gone without DELETE: its connection waits out the resume window (the stall timeout without one).
      detachedTimeoutMs: resumeWindowMs > 0 ? resumeWindowMs : stallTimeoutMs > 0 ? stallTimeoutMs : 60_000,
      detachedSessions: this.#detached,
      routeKeysOf: (payload) => this.#routeKeysOf(payload),
    });
    try {
      const session = this.#handleConnection(port, this.#connectionContext(connectionId, log));
      this.#track(session, port, fields);
    } catch (error) {
      logger.error('connection handler failed', { ...fields, error: String(error) });
      port.terminate({ code: CloseCode.InternalError, reason: 'connection setup failed' });
    }
    return port;
  }

  /** Route keys of a frame handed to a Streamable HTTP port without them (rare: the relay's own answers). */
  #routeKeysOf(payload: Buffer | string): RouteKeys {
    const scanner = this.#routeScanner;
    if (!scanner.scan(typeof payload === 'string' ? Buffer.from(payload) : payload))
      return { kind: 'response' };
    return readRouteKeys(scanner, this.#routeNodes);
  }

  /** Bytes held for clients now, by buffer, over every transport (read at scrape time, never per message). */
  #bufferedBytes(): Record<BufferName, number> {
    let sendQueue = 0;
    let replay = 0;
    for (const port of this.#sessions.values()) {
      sendQueue += port.bufferedAmount;
      replay += port.replayBytes;
    }
    return { send_queue: sendQueue, replay };
  }

  #isIdle(): boolean {
    return this.#sessions.size === 0 && this.#pendingUpgrades === 0;
  }

  /** A connection or upgrade ended: wakes a drain waiting for the last one. */
  #connectionEnded(): void {
    if (!this.#isIdle()) return;
    for (const waiter of this.#idleWaiters) waiter();
    this.#idleWaiters.clear();
  }

  // --- Lifecycle: drain and close ---

  async drain(options: DrainOptions = {}): Promise<DrainResult> {
    const graceMs = resolveGraceMs(options.graceMs);
    if (this.#drained === undefined) {
      if (this.#state === 'running') this.#state = 'draining';
      this.#drained = this.#runDrain(graceMs);
    }
    return this.#drained;
  }

  async #runDrain(graceMs: number): Promise<DrainResult> {
    const logger = this.#logger;
    const startedAt = performance.now();
    logger.info('drain started', { connections: this.#sessions.size, graceMs });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      new Promise<'idle'>((resolve) => {
        if (this.#isIdle()) resolve('idle');
        else this.#idleWaiters.add(() => resolve('idle'));
      }),
      new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), graceMs);
      }),
      this.#closeStarted,
    ]);
    clearTimeout(timer);
    this.#idleWaiters.clear();
    const elapsedMs = Math.round(performance.now() - startedAt);
    if (outcome === 'idle') {
      logger.info('drain finished: every connection ended', { elapsedMs });
      return { endedWithinGrace: true, closedConnections: 0 };
    }
    const remaining = this.#sessions.size;
    logger.warn(
      outcome === 'expired'
        ? 'drain grace period ended; closing the remaining connections'
        : 'drain cut short by close; closing the remaining connections',
      { connections: remaining, graceMs, elapsedMs },
    );
    // close() shuts its connections down itself.
    await (outcome === 'expired' ? this.#shutDownSessions(DRAIN_EXPIRED_REASON) : this.#closed);
    return { endedWithinGrace: false, closedConnections: remaining };
  }

  async close(options: CloseOptions = {}): Promise<void> {
    if (options.graceMs !== undefined && this.#closed === undefined)
      await this.drain({ graceMs: options.graceMs });
    this.#closed ??= this.#runClose();
    return this.#closed;
  }

  async #runClose(): Promise<void> {
    const httpServer = this.#httpServer;
    this.#state = 'closing';
    this.#markCloseStarted();
    const serverClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeIdleConnections();
    await this.#shutDownSessions(SHUTDOWN_REASON);
    httpServer.closeAllConnections();
    this.#webSocketServer.close();
    await serverClosed;
    this.#state = 'closed';
  }

  #shutDownSessions(reason: string): Promise<PromiseSettledResult<void>[]> {
    return Promise.allSettled(
      [...this.#sessions.keys()].map((session) => {
        session.shutdown(reason);
        return session.done;
      }),
    );
  }
}
