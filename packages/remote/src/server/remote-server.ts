// The HTTP server behind `serveAcp` and `serveCommand`, written as `ws`'s WebSocketServer is: a class whose state
// (running, draining, closing, closed) lives in one field. It keeps the lifecycle (listen, drain, close), the front
// door (every request and upgrade passes admission here) and the registry of open connections; the transports'
// acceptors (websocket/websocket-acceptor.ts, streamable-http/server/http-acceptor.ts) open theirs through `open`.

import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ServerPaths } from '../options/mount-path.js';
import { type ResolvedServeOptions, resolveGraceMs } from '../options/validation.js';
import { FrameLog } from '../relay/frame-log.js';
import type { FramePort } from '../relay/frame-port.js';
import {
  type ConnectionHandler,
  type ConnectionOpener,
  type ConnectionOpening,
  type ConnectionSession,
  SHUTDOWN_REASON,
} from '../seams/connection.js';
import type { Refusal } from '../seams/refusal.js';
import { NO_METRICS, type ServerMetrics } from '../seams/server-metrics.js';
import { MemorySessionKeeper } from '../sessions/session-keeper.js';
import { CloseCode } from '../shared/constants.js';
import { type ResumableRetention, retentionOf } from '../shared/durable-resume.js';
import { INITIALIZE_TIMEOUT_MS } from '../shared/fixed-limits.js';
import type { RemoteLogger } from '../shared/logger.js';
import { type Transport, transportLabel } from '../shared/transport.js';
import { StreamableHttpEndpoint } from '../streamable-http/server/endpoint.js';
import { HttpAcceptor } from '../streamable-http/server/http-acceptor.js';
import { EVENT_OVERHEAD_BYTES } from '../streamable-http/server/sse-stream.js';
import { DurableSockets } from '../websocket/durable/durable-sockets.js';
import { ResumeRegistry } from '../websocket/resume/resume-registry.js';
import { WebSocketAcceptor } from '../websocket/websocket-acceptor.js';
import { buildServerMetadata, type ServerMetadata } from '../wire/server-metadata.js';
import {
  type AdmissionPhase,
  type AdmissionRules,
  decideNewConnection,
  decideRequest,
  decideUpgrade,
  requestPath,
} from './admission.js';
import { HttpEndpoints, rejectUpgrade, respondRefusal } from './http-endpoints.js';
import { listen } from './http-listener.js';
import { HttpSockets } from './http-sockets.js';
import { type BufferName, createMetricsEndpoint, type MetricsEndpoint } from './metrics.js';
import { RefusalLog } from './refusal-log.js';
import type { CloseOptions, DrainOptions, DrainResult, RemoteServer } from './remote-server-api.js';

/** Close reason of the connections still open when a drain's grace period runs out. */
const DRAIN_EXPIRED_REASON = 'server shutting down: drain grace period ended';

/**
 * Where a server is in its life: `running` accepts connections; `draining` refuses new ones (503 with
 * `Retry-After`) while open ones go on; `closing` refuses everything and closes what is open; `closed` listens no
 * more.
 */
type ServerState = 'running' | 'draining' | 'closing' | 'closed';

/**
 * The server shared by `serveAcp` and `serveCommand`: the front door (every request and upgrade passes admission,
 * every refusal is logged rate-limited and counted by `#recordRefusal`), the registry of connections (each opened
 * through {@link ConnectionOpener.open}, whatever its transport), metrics, a drain, and an idempotent close that
 * waits for every connection's teardown. Start one with {@link RemoteServerHost.start}.
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
  readonly #refusals: RefusalLog;
  /**
   * Every connection until its teardown ends, detached sessions included, with its port (its transport, and what
   * the buffer metrics add up at scrape time).
   */
  readonly #sessions = new Map<ConnectionSession, FramePort>();
  #nextConnectionId = 1;
  /** Resume (`acpkit.resume.v1`) is offered unless the window is 0; tokens live in this registry only. */
  readonly #resumes: ResumeRegistry | undefined;
  /** RFD WebSocket connections a `stream/resume` can take over (the durable-resume draft); undefined when off. */
  readonly #durableSockets: DurableSockets | undefined;
  /** What `initialize` advertises as the durable-resume draft's retention; undefined when nothing is kept. */
  readonly #retention: ResumableRetention | undefined;
  /** Sessions kept across a drop, whatever their transport (`maxDetachedSessions`, one identity rule). */
  readonly #sessionKeeper: MemorySessionKeeper;
  #metricsEndpoint: MetricsEndpoint | undefined;
  #metrics: ServerMetrics = NO_METRICS;
  /** What the transports' acceptors see of the server. */
  readonly #opener: ConnectionOpener;
  /** Admission's rules, the routes and the HTTP server: made in `start()`, before anyone sees the server. */
  #admissionRules!: AdmissionRules;
  #endpoints!: HttpEndpoints;
  /** ACP's Streamable HTTP on the mount path, and the connections it holds. */
  #streamableHttp!: StreamableHttpEndpoint;
  readonly #webSockets: WebSocketAcceptor;
  /** The plain HTTP sockets: the connection cap, the event streams' sockets (`maxEventStreams`). */
  readonly #httpSockets: HttpSockets;
  #httpServer!: HttpServer | HttpsServer;
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
    this.#refusals = new RefusalLog(resolved.logger, () => this.#metrics, resolved);
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
    this.#sessionKeeper = new MemorySessionKeeper({
      maxDetached: resolved.maxDetachedSessions,
      logger: resolved.logger,
      onEvicted: () => this.#metrics.limitReached('detached_sessions'),
    });
    this.#resumes = ResumeRegistry.forServer(resolved, this.#sessionKeeper, resolved.logger);
    // The durable-resume draft's retention, advertised only when messages are kept (Streamable HTTP, RFD WebSocket).
    this.#retention = retentionOf(resolved, EVENT_OVERHEAD_BYTES);
    this.#closeStarted = new Promise<'closed'>((resolve) => {
      this.#markCloseStarted = () => resolve('closed');
    });
    this.#httpSockets = new HttpSockets(resolved, this.#refusals, () => this.#metrics);
    const host = this;
    this.#opener = {
      get metrics() {
        return host.#metrics;
      },
      logger: resolved.logger,
      get accepting() {
        return host.#state === 'running' || host.#state === 'draining';
      },
      open: (opening) => this.#open(opening),
      settled: () => this.#settled(),
    };
    this.#durableSockets = DurableSockets.forServer(
      resolved,
      this.#retention,
      this.#sessionKeeper,
      resolved.logger,
    );
    this.#webSockets = new WebSocketAcceptor({
      resolved,
      opener: this.#opener,
      resumes: this.#resumes,
      durable: this.#durableSockets,
      admit: (request) => this.#admitConnection(request, 'websocket'),
    });
    // drain and close work detached from the object too (`const { close } = server`).
    this.drain = this.drain.bind(this);
    this.close = this.close.bind(this);
  }

  get connectionCount(): number {
    return this.#sessions.size;
  }

  get detachedCount(): number {
    return this.#sessionKeeper.detachedCount;
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
        eventStreams: () => this.#httpSockets.eventStreamCount,
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
      durable: this.#durableSockets,
    };
    const httpAcceptor = new HttpAcceptor({
      resolved,
      opener: this.#opener,
      admit: (request) => this.#admitConnection(request, 'streamable-http'),
      sessions: this.#sessionKeeper,
    });
    this.#streamableHttp = new StreamableHttpEndpoint({
      maxMessageBytes: resolved.maxMessageBytes,
      instanceId: resolved.instanceId,
      allowedOrigins: resolved.policy.allowedOrigins,
      resumeWindowMs: resolved.resumeWindowMs,
      retention: this.#retention,
      sessions: this.#sessionKeeper,
      initializeTimeoutMs: INITIALIZE_TIMEOUT_MS,
      openConnection: (request, connectionId) => httpAcceptor.open(request, connectionId),
      refused: (request, refusal) => this.#refusals.refused('request', refusal, request),
      streamStarted: (request) => this.#httpSockets.streamStarted(request),
      eventStreamFits: () => this.#httpSockets.eventStreamFits(),
      durableResumed: (outcome) => this.#metrics.durableResume('streamable-http', outcome),
    });
    this.#endpoints = new HttpEndpoints({
      paths: resolved.paths,
      metadataBody: `${JSON.stringify(this.metadata)}\n`,
      metricsEndpoint: this.#metricsEndpoint,
      logger: this.#logger,
      draining: () => this.draining,
    });
    const listening = await listen(resolved, {
      connection: (socket) => this.#httpSockets.connected(socket),
      request: (request, response) => this.#onRequest(request, response),
      clientError: (error, socket) => this.#httpSockets.clientError(error, socket),
      upgrade: (request, socket, head) => this.#onUpgrade(request, socket, head),
      error: (error) => this.#logger.error('server error', { error: String(error) }),
    });
    this.#httpServer = listening.server;
    this.port = listening.port;
    this.url = listening.url;
    this.endpoint = listening.endpoint;
  }

  // --- Front door: admission, HTTP connections, routes, parser errors, upgrades ---

  get #admissionPhase(): AdmissionPhase {
    if (this.#state === 'running') return 'open';
    return this.#state === 'draining' ? 'draining' : 'shutting-down';
  }

  /** Connections open or being opened, as `maxConnections` counts them. */
  get #connectionsCounted(): number {
    return this.#sessions.size + this.#webSockets.pendingUpgrades;
  }

  /** Admission of a new connection after its request passed (shutdown, drain, the cap): the refusal, recorded. */
  #admitConnection(request: IncomingMessage, transport: Transport): Refusal | undefined {
    const decision = decideNewConnection(
      this.#admissionRules,
      this.#admissionPhase,
      this.#connectionsCounted,
    );
    if (decision.ok) return undefined;
    this.#refusals.refused('connection', decision, request, transport);
    return decision;
  }

  #onRequest(request: IncomingMessage, response: ServerResponse): void {
    this.#httpSockets.requestStarted(request, response);
    const decision = decideRequest(request, this.#admissionRules);
    if (!decision.ok) {
      this.#refusals.refused('request', decision, request);
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

  /** An upgrade: admission here, the handshake and the connection in the WebSocket acceptor. */
  #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    this.#httpSockets.upgraded(request.socket);
    const decision = decideUpgrade(
      request,
      this.#admissionRules,
      this.#admissionPhase,
      this.#connectionsCounted,
    );
    if (!decision.ok) {
      this.#refusals.refused('connection', decision, request, 'websocket');
      rejectUpgrade(socket, decision);
      return;
    }
    // An upgrade on the mount path is the RFD WebSocket (ACP's standard transport).
    this.#webSockets.accept(request, socket, head, decision, requestPath(request) === this.paths.metadata);
  }

  // --- Registry: the one path that opens a connection, and what it keeps ---

  /** See {@link ConnectionOpener.open}. */
  #open(opening: ConnectionOpening): FramePort | undefined {
    const { maxMessageBytes, maxPendingRequests } = this.#resolved;
    const logger = this.#logger;
    this.#metrics.connectionAccepted(opening.transport);
    const connectionId = this.#nextConnectionId++;
    const fields = { connection: connectionId, transport: transportLabel(opening.transport) };
    logger.info('connection opened', {
      ...fields,
      remoteAddress: opening.remoteAddress,
      ...opening.logFields,
    });
    const log = new FrameLog(logger, { connection: connectionId });
    const { port, onEnded } = opening.makePort(connectionId, log);
    const context = {
      maxMessageBytes,
      maxPendingRequests,
      logger,
      connectionId,
      metrics: this.#metrics,
      log,
    };
    let session: ConnectionSession;
    try {
      session = this.#handleConnection(port, context);
    } catch (error) {
      logger.error('connection handler failed', { ...fields, error: String(error) });
      onEnded?.();
      // The peer hears why (a close frame, or the ended connection's answer), then nothing is left of it.
      const close = { code: CloseCode.InternalError, reason: 'connection setup failed' };
      port.close(close.code, close.reason);
      port.terminate(close);
      this.#settled();
      return undefined;
    }
    this.#sessions.set(session, port);
    void session.done
      .catch((error: unknown) => {
        logger.error('connection teardown failed', { ...fields, error: String(error) });
      })
      .finally(() => {
        onEnded?.();
        this.#sessions.delete(session);
        logger.info('connection closed', fields);
        this.#settled();
      });
    return port;
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
    return this.#connectionsCounted === 0;
  }

  /** A connection or upgrade ended: wakes a drain waiting for the last one. */
  #settled(): void {
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
    this.#webSockets.close();
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
