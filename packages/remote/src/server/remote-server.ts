import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ServerPaths } from '../options/mount-path.js';
import { type ResolvedServeOptions, resolveGraceMs } from '../options/validation.js';
import { FrameLog } from '../relay/frame-log.js';
import { startHeartbeat } from '../relay/heartbeat.js';
import type { FrameRefusalReason } from '../relay/relay-metrics.js';
import { startSendStallGuard } from '../relay/send-stall-guard.js';
import { WebSocketPort } from '../relay/websocket-port.js';
import {
  REFUSAL_EXPLANATIONS,
  RESUME_REFUSED_HEADER,
  RESUME_SUBPROTOCOL,
  type ResumeRefusalReason,
  readResumeRequest,
} from '../resume/resume-protocol.js';
import { connectionIdentity, type ResumableSession, ResumeRegistry } from '../resume/resume-registry.js';
import { CloseCode, DRAIN_RETRY_AFTER_SECONDS, METRICS_PATH } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import {
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_TIMEOUT_CHECK_INTERVAL_MS,
  hardPayloadCap,
} from '../shared/fixed-limits.js';
import { type RemoteLogger, rateLimitLogger } from '../shared/logger.js';
import { buildServerMetadata, type ServerMetadata } from '../wire/server-metadata.js';
import {
  checkBearer,
  checkHostAndOrigin,
  checkSingleSecurityHeaders,
  type Refusal,
  type RefusalReason,
} from './admission.js';
import { HttpConnectionCap } from './http-connection-cap.js';
import { createMetricsEndpoint, NO_METRICS, type ServerMetrics } from './metrics.js';

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
  /** `ws://HOST:PORT<mount>/ws` with the real port. */
  readonly url: string;
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
  /** Sessions whose client dropped and that wait for a resume (included in {@link connectionCount}). */
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
  /**
   * Ends the connection because the server is shutting down or the drain grace ran out: 1001 with `reason` when a
   * socket is attached, at once when a resumable session waits for its client.
   */
  shutdown(reason: string): void;
}

/** Per-connection values handed to a connection handler. */
export interface ConnectionContext {
  readonly maxMessageBytes: number;
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
 * Serves one connection on its port. The port is the server's: it carries resume when the client negotiated it, so
 * a handler sees one continuous connection whatever happens to the sockets under it.
 */
export type ConnectionHandler = (port: WebSocketPort, context: ConnectionContext) => ConnectionSession;

/** The outcome of checking an upgrade: a refusal, a new connection, or a resume of `session`. */
type UpgradeDecision =
  | Refusal
  | { readonly ok: true; readonly resume?: { session: ResumableSession; received: number } };

function requestPath(request: IncomingMessage): string | undefined {
  const raw = request.url ?? '';
  if (!raw.startsWith('/')) return undefined;
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

function refuse(
  status: number,
  reason: RefusalReason,
  body: string,
  headers?: Record<string, string>,
): Refusal {
  return { ok: false, status, reason, body, ...(headers ? { headers } : {}) };
}

function rejectUpgrade(socket: Duplex, refusal: Refusal): void {
  const body = refusal.body;
  const headers = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(refusal.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.on('error', () => {});
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

/** A complete answer with a body (`text/plain` unless said otherwise); HEAD gets the headers only. */
function respondText(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function respond(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(refusal.body),
    ...refusal.headers,
  });
  response.end(refusal.body);
}

/** The subprotocols a request offers (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  return typeof header === 'string' ? header.split(',').map((protocol) => protocol.trim()) : [];
}

function refuseResume(reason: ResumeRefusalReason): Refusal {
  return refuse(
    reason === 'invalid' ? 400 : 410,
    'resume',
    `resume refused: ${reason}: ${REFUSAL_EXPLANATIONS[reason]}\n`,
    { [RESUME_REFUSED_HEADER]: reason },
  );
}

function formatUrlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

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
 * Starts the HTTP + WebSocket server shared by `serveAcp` and `serveCommand`: routes, security checks before the
 * upgrade, connection caps, HTTP timeouts, heartbeats, metrics, a drain, and an idempotent close that waits for
 * every connection's teardown. Every refusal goes through `decide` (one place, a stable reason each) and is logged
 * rate-limited and counted by `recordRefusal`.
 */
export async function startRemoteServer(
  resolved: ResolvedServeOptions,
  handleConnection: ConnectionHandler,
): Promise<RemoteServer> {
  const { paths, policy, logger } = resolved;
  const refusalLog = rateLimitLogger(logger, REFUSAL_LOG_LIMIT);
  const metadata = buildServerMetadata({
    paths,
    authRequired: policy.bearerToken !== undefined,
    maxMessageBytes: resolved.maxMessageBytes,
    remoteCwd: resolved.remoteCwd,
    useUnstableProtocol: resolved.useUnstableProtocol,
  });
  const metadataBody = `${JSON.stringify(metadata)}\n`;
  const sessions = new Set<ConnectionSession>();
  // Resume (`acpkit.resume.v1`) is offered unless the window is 0; tokens live in this registry only.
  const resumes =
    resolved.resumeWindowMs > 0
      ? new ResumeRegistry(
          { windowMs: resolved.resumeWindowMs, bufferBytes: resolved.resumeBufferBytes },
          logger,
        )
      : undefined;
  let pendingUpgrades = 0;
  let nextConnectionId = 1;
  let draining: Promise<DrainResult> | undefined;
  let closing: Promise<void> | undefined;
  let markCloseStarted: () => void = () => {};
  const closeStarted = new Promise<'closed'>((resolve) => {
    markCloseStarted = () => resolve('closed');
  });
  const isDraining = () => draining !== undefined || closing !== undefined;
  // A drain waits for the last connection (and any upgrade in progress) to end.
  const idleWaiters = new Set<() => void>();
  const isIdle = () => sessions.size === 0 && pendingUpgrades === 0;
  const connectionEnded = () => {
    if (!isIdle()) return;
    for (const waiter of idleWaiters) waiter();
    idleWaiters.clear();
  };

  const metricsEndpoint = resolved.metrics
    ? await createMetricsEndpoint({
        openConnections: () => sessions.size,
        draining: isDraining,
        detachedSessions: () => resumes?.detachedCount ?? 0,
        resumeCounters: resumes?.counters,
      })
    : undefined;
  const metrics = metricsEndpoint?.metrics ?? NO_METRICS;

  const webSocketServer = new WebSocketServer({
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

  /**
   * A resume request (its headers present): the session to attach, or why not. Skips the connection cap (the
   * session already counts) and the drain (the session is this instance's to finish).
   */
  const decideResume = (request: IncomingMessage): UpgradeDecision | undefined => {
    const resumeRequest = readResumeRequest(request.headers);
    if (resumeRequest.kind === 'none') return undefined;
    const refuseCounted = (reason: ResumeRefusalReason) => {
      resumes?.countRefusal(reason);
      return refuseResume(reason);
    };
    if (resumeRequest.kind === 'invalid' || !offeredProtocols(request).includes(RESUME_SUBPROTOCOL))
      return refuseCounted('invalid');
    // Resume off: this server keeps no session for anyone.
    if (resumes === undefined) return refuseResume('unknown');
    const verdict = resumes.check(
      resumeRequest.token,
      resumeRequest.received,
      connectionIdentity(request.headers),
    );
    if (!verdict.ok) return refuseResume(verdict.reason);
    return { ok: true, resume: { session: verdict.session, received: resumeRequest.received } };
  };

  /** Every refusal point of the server, in order. */
  const decide = (kind: 'upgrade' | 'http', request: IncomingMessage): UpgradeDecision => {
    if (kind === 'upgrade' && closing !== undefined)
      return refuse(503, 'shutdown', 'server is shutting down\n');
    const single = checkSingleSecurityHeaders(request.rawHeaders);
    if (!single.ok) return single;
    const hostAndOrigin = checkHostAndOrigin(request.headers, policy);
    if (!hostAndOrigin.ok) return hostAndOrigin;
    const path = requestPath(request);
    if (kind === 'upgrade') {
      if (path !== paths.websocket && path !== paths.metadata) return refuse(404, 'path', 'not found\n');
      const bearer = checkBearer(request.headers, policy);
      if (!bearer.ok) return bearer;
      const resume = decideResume(request);
      if (resume !== undefined) return resume;
      // After the token: only a client that may connect learns that this instance drains.
      if (draining !== undefined) {
        return refuse(503, 'draining', 'server is draining; connect again to reach another instance\n', {
          'Retry-After': String(DRAIN_RETRY_AFTER_SECONDS),
        });
      }
      if (sessions.size + pendingUpgrades >= resolved.maxConnections) {
        return refuse(503, 'limit', 'too many connections\n');
      }
      return { ok: true };
    }
    const isMetrics = metricsEndpoint !== undefined && path === METRICS_PATH;
    if (path !== paths.health && path !== paths.readiness && path !== paths.metadata && !isMetrics) {
      return refuse(404, 'path', 'not found\n');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse(405, 'method', 'method not allowed\n', { Allow: 'GET, HEAD' });
    }
    // Metadata names the remote cwd and metrics describe the traffic: both need the token when one is configured.
    return path === paths.metadata || isMetrics ? checkBearer(request.headers, policy) : { ok: true };
  };

  /** Logs (rate-limited) and counts a refusal `decide` made. */
  const recordRefusal = (kind: 'upgrade' | 'http', refusal: Refusal, request: IncomingMessage) => {
    if (kind === 'upgrade') metrics.connectionRefused(refusal.reason);
    else metrics.requestRefused(refusal.reason);
    refusalLog.info(kind === 'upgrade' ? 'connection refused' : 'request refused', {
      reason: refusal.reason,
      status: refusal.status,
      remoteAddress: request.socket.remoteAddress,
      path: loggedPath(request),
      ...(refusal.reason === 'limit' ? { maxConnections: resolved.maxConnections } : {}),
      ...(refusal.reason === 'resume' ? { resume: refusal.headers?.[RESUME_REFUSED_HEADER] } : {}),
    });
  };

  const httpConnections = new HttpConnectionCap(resolved.maxHttpConnections, (socket) => {
    metrics.requestRefused('limit');
    refusalLog.info('idle connection closed to make room', {
      reason: 'limit',
      remoteAddress: socket.remoteAddress,
      maxHttpConnections: resolved.maxHttpConnections,
    });
  });

  const serveMetrics = async (
    endpoint: NonNullable<typeof metricsEndpoint>,
    request: IncomingMessage,
    response: ServerResponse,
  ) => {
    let body: string;
    try {
      body = await endpoint.render();
    } catch (error) {
      logger.error('metrics collection failed', { error: String(error) });
      respondText(request, response, 500, 'metrics collection failed\n');
      return;
    }
    respondText(request, response, 200, body, endpoint.contentType);
  };

  const handleRequest = (request: IncomingMessage, response: ServerResponse) => {
    httpConnections.requestStarted(request.socket);
    response.once('close', () => httpConnections.requestFinished(request.socket));
    const decision = decide('http', request);
    if (!decision.ok) {
      recordRefusal('http', decision, request);
      return respond(response, decision);
    }
    const path = requestPath(request);
    if (path === paths.health) return respondText(request, response, 200, 'ok\n');
    if (path === paths.readiness) {
      return isDraining()
        ? respondText(request, response, 503, 'draining\n')
        : respondText(request, response, 200, 'ok\n');
    }
    if (path === METRICS_PATH && metricsEndpoint !== undefined) {
      void serveMetrics(metricsEndpoint, request, response);
      return;
    }
    respondText(request, response, 200, metadataBody, 'application/json');
  };
  // Node's defaults let a silent connection live 60-90 s; these bounds are documented in docs/remote-transport.md.
  const httpOptions = {
    requireHostHeader: false,
    headersTimeout: HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_INTERVAL_MS,
  };
  const httpServer = resolved.tls
    ? createHttpsServer(
        { ...resolved.tls, ...httpOptions, handshakeTimeout: HTTP_HEADERS_TIMEOUT_MS },
        handleRequest,
      )
    : createServer(httpOptions, handleRequest);

  httpServer.on('connection', (socket: Socket) => {
    if (httpConnections.admit(socket)) return;
    socket.destroy();
    metrics.requestRefused('limit');
    refusalLog.info('connection refused', {
      reason: 'limit',
      remoteAddress: socket.remoteAddress,
      maxHttpConnections: resolved.maxHttpConnections,
    });
  });

  httpServer.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A request that did not arrive in time gets 408; anything else the parser refused, 400 (never a crash).
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    metrics.requestRefused(timedOut ? 'timeout' : 'malformed');
    refusalLog.info('request refused', {
      reason: timedOut ? 'timeout' : 'malformed',
      status: timedOut ? 408 : 400,
      remoteAddress: socket.remoteAddress,
      ...(timedOut ? {} : { error: error.code ?? error.message }),
    });
    socket.end(
      timedOut
        ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 16\r\n\r\nrequest timeout\n'
        : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 12\r\n\r\nbad request\n',
    );
  });

  /**
   * What every accepted socket gets, new or resumed: the size-limit close reason, an error listener, heartbeats and
   * the send-stall guard (each stops when that socket closes).
   */
  const prepareSocket = (webSocket: WebSocket, connectionId: number): (() => void) => {
    // ws closes a message over its payload cap itself, with code 1009 and no reason; give that close the same
    // reason our own size check gives, so the peer learns the limit either way.
    const closeSocket = webSocket.close.bind(webSocket);
    webSocket.close = (code?: number, reason?: string | Buffer) =>
      closeSocket(
        code,
        code === CloseCode.MessageTooBig && (reason === undefined || reason.length === 0)
          ? `message exceeds the ${resolved.maxMessageBytes}-byte limit`
          : reason,
      );
    // ws reports protocol violations (invalid UTF-8, oversize) as 'error' before closing with 1007/1009;
    // without a listener they would crash the process.
    webSocket.on('error', (error: Error & { code?: string }) => {
      metrics.frameRefused('client', WS_ERROR_REASONS[error.code ?? ''] ?? 'protocol_error');
      logger.warn('WebSocket error', { connection: connectionId, error: error.code ?? error.message });
    });
    const stopHeartbeat = startHeartbeat(webSocket, resolved.pingIntervalMs, () => {
      metrics.heartbeatTimedOut();
      logger.warn('connection terminated: missed pong', { connection: connectionId });
    });
    startSendStallGuard(webSocket, resolved.stallTimeoutMs, (stalledForMs) => {
      metrics.sendStallClosed();
      logger.warn('connection closed: send stalled, the client stopped reading', {
        connection: connectionId,
        stalledForMs: Math.round(stalledForMs),
        bufferedAmount: webSocket.bufferedAmount,
      });
    });
    return stopHeartbeat;
  };

  const openConnection = (webSocket: WebSocket, request: IncomingMessage) => {
    metrics.connectionAccepted();
    const connectionId = nextConnectionId++;
    const stopHeartbeat = prepareSocket(webSocket, connectionId);
    logger.info('connection opened', {
      connection: connectionId,
      remoteAddress: request.socket.remoteAddress,
      ...(webSocket.protocol === RESUME_SUBPROTOCOL ? { resumable: true } : {}),
    });
    const log = new FrameLog(logger, { connection: connectionId });
    const port = new WebSocketPort(webSocket, {
      maxMessageBytes: resolved.maxMessageBytes,
      log,
      peer: 'client',
      pauseWhenFull: true,
      metrics,
      ...(resumes !== undefined && webSocket.protocol === RESUME_SUBPROTOCOL
        ? { resume: resumes.open(connectionIdentity(request.headers), connectionId) }
        : {}),
    });
    let session: ConnectionSession;
    try {
      session = handleConnection(port, {
        maxMessageBytes: resolved.maxMessageBytes,
        logger,
        connectionId,
        metrics,
        log,
      });
    } catch (error) {
      stopHeartbeat();
      logger.error('connection handler failed', { connection: connectionId, error: String(error) });
      port.close(CloseCode.InternalError, 'connection setup failed');
      port.terminate({ code: CloseCode.InternalError, reason: 'connection setup failed' });
      connectionEnded();
      return;
    }
    sessions.add(session);
    void session.done
      .catch((error: unknown) => {
        logger.error('connection teardown failed', { connection: connectionId, error: String(error) });
      })
      .finally(() => {
        stopHeartbeat();
        sessions.delete(session);
        logger.info('connection closed', { connection: connectionId });
        connectionEnded();
      });
  };

  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    httpConnections.upgraded(request.socket);
    const decision = decide('upgrade', request);
    if (!decision.ok) {
      recordRefusal('upgrade', decision, request);
      return rejectUpgrade(socket, decision);
    }
    pendingUpgrades += 1;
    let upgraded = false;
    // handleUpgrade answers an invalid handshake itself (400) without calling back; release the slot then.
    socket.once('close', () => {
      if (!upgraded) {
        upgraded = true;
        pendingUpgrades -= 1;
        metrics.connectionRefused('malformed');
        connectionEnded();
      }
    });
    webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
      upgraded = true;
      pendingUpgrades -= 1;
      if (closing !== undefined) {
        metrics.connectionRefused('shutdown');
        webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
        connectionEnded();
        return;
      }
      const resume = decision.resume;
      if (resume === undefined) {
        openConnection(webSocket, request);
        return;
      }
      prepareSocket(webSocket, resume.session.connectionId);
      resumes?.attach(resume.session, webSocket, resume.received, request.socket.remoteAddress);
      connectionEnded();
    });
  });

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
  httpServer.on('error', (error) => logger.error('server error', { error: String(error) }));

  const address = httpServer.address() as AddressInfo;
  const port = address.port;
  const url = `${resolved.tls ? 'wss' : 'ws'}://${formatUrlHost(resolved.host)}:${port}${paths.websocket}`;

  const shutDownSessions = (reason: string) =>
    Promise.allSettled(
      [...sessions].map((session) => {
        session.shutdown(reason);
        return session.done;
      }),
    );

  const runDrain = async (graceMs: number): Promise<DrainResult> => {
    const startedAt = performance.now();
    logger.info('drain started', { connections: sessions.size, graceMs });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      new Promise<'idle'>((resolve) => {
        if (isIdle()) resolve('idle');
        else idleWaiters.add(() => resolve('idle'));
      }),
      new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), graceMs);
      }),
      closeStarted,
    ]);
    clearTimeout(timer);
    idleWaiters.clear();
    const elapsedMs = Math.round(performance.now() - startedAt);
    if (outcome === 'idle') {
      logger.info('drain finished: every connection ended', { elapsedMs });
      return { endedWithinGrace: true, closedConnections: 0 };
    }
    const remaining = sessions.size;
    logger.warn(
      outcome === 'expired'
        ? 'drain grace period ended; closing the remaining connections'
        : 'drain cut short by close; closing the remaining connections',
      { connections: remaining, graceMs, elapsedMs },
    );
    // close() shuts its connections down itself.
    await (outcome === 'expired' ? shutDownSessions(DRAIN_EXPIRED_REASON) : closing);
    return { endedWithinGrace: false, closedConnections: remaining };
  };

  const drain = async (options: DrainOptions = {}): Promise<DrainResult> => {
    const graceMs = resolveGraceMs(options.graceMs);
    draining ??= runDrain(graceMs);
    return draining;
  };

  const close = async (options: CloseOptions = {}): Promise<void> => {
    if (options.graceMs !== undefined && closing === undefined) await drain({ graceMs: options.graceMs });
    closing ??= (async () => {
      markCloseStarted();
      const serverClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      await shutDownSessions(SHUTDOWN_REASON);
      httpServer.closeAllConnections();
      webSocketServer.close();
      await serverClosed;
    })();
    return closing;
  };

  return {
    url,
    host: resolved.host,
    port,
    paths,
    metadata,
    get connectionCount() {
      return sessions.size;
    },
    get detachedCount() {
      return resumes?.detachedCount ?? 0;
    },
    get draining() {
      return isDraining();
    },
    drain,
    close,
  };
}
