import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { CloseCode } from './constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
import { FrameLog } from './frame-log.js';
import { startHeartbeat } from './heartbeat.js';
import { HttpConnectionCap } from './http-connection-cap.js';
import {
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_TIMEOUT_CHECK_INTERVAL_MS,
  hardPayloadCap,
} from './limits.js';
import { type RemoteLogger, rateLimitLogger } from './logger.js';
import { buildServerMetadata, type ServerMetadata } from './metadata.js';
import type { ServerPaths } from './mount-path.js';
import type { ResolvedServeOptions } from './options-validation.js';
import {
  REFUSAL_EXPLANATIONS,
  RESUME_REFUSED_HEADER,
  RESUME_SUBPROTOCOL,
  type ResumeRefusalReason,
  readResumeRequest,
} from './resume-protocol.js';
import { connectionIdentity, type ResumableSession, ResumeRegistry } from './resume-registry.js';
import {
  checkBearer,
  checkHostAndOrigin,
  checkSingleSecurityHeaders,
  type Refusal,
  type RefusalReason,
} from './security.js';
import { startSendStallGuard } from './send-stall-guard.js';
import { WebSocketPort } from './websocket-port.js';

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
  /** Stops accepting, closes every socket (1001) and reaps every child. Idempotent. */
  close(): Promise<void>;
}

/** One relayed connection: resolves `done` after everything it owns (child process included) is gone. */
export interface ConnectionSession {
  readonly done: Promise<void>;
  /** Ends the connection because the server is shutting down. */
  shutdown(): void;
}

/** Per-connection values handed to a connection handler. */
export interface ConnectionContext {
  readonly maxMessageBytes: number;
  readonly logger: RemoteLogger;
  readonly connectionId: number;
  /** Per-frame warnings of the connection (rate-limited, carrying its id). */
  readonly log: FrameLog;
}

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
    {
      [RESUME_REFUSED_HEADER]: reason,
    },
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
 * upgrade, connection caps, HTTP timeouts, heartbeats, and an idempotent close that waits for every connection's
 * teardown. Every refusal goes through `decide` (one place, a stable reason each) and is logged rate-limited.
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
  let closing: Promise<void> | undefined;

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
   * A resume request (its headers present): the session to attach, or why not. Skips the connection cap: the
   * session already counts.
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
      if (sessions.size + pendingUpgrades >= resolved.maxConnections) {
        return refuse(503, 'limit', 'too many connections\n');
      }
      return { ok: true };
    }
    if (path !== paths.health && path !== paths.metadata) return refuse(404, 'path', 'not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse(405, 'method', 'method not allowed\n', { Allow: 'GET, HEAD' });
    }
    // Metadata names the remote cwd, so it needs the token when one is configured.
    return path === paths.metadata ? checkBearer(request.headers, policy) : { ok: true };
  };

  const logRefusal = (kind: 'upgrade' | 'http', refusal: Refusal, request: IncomingMessage) => {
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
    refusalLog.info('idle connection closed to make room', {
      reason: 'limit',
      remoteAddress: socket.remoteAddress,
      maxHttpConnections: resolved.maxHttpConnections,
    });
  });

  const handleRequest = (request: IncomingMessage, response: ServerResponse) => {
    httpConnections.requestStarted(request.socket);
    response.once('close', () => httpConnections.requestFinished(request.socket));
    const decision = decide('http', request);
    if (!decision.ok) {
      logRefusal('http', decision, request);
      return respond(response, decision);
    }
    if (requestPath(request) === paths.health) {
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 3 });
      response.end(request.method === 'HEAD' ? undefined : 'ok\n');
      return;
    }
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(metadataBody),
      'Cache-Control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : metadataBody);
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
      logger.warn('WebSocket error', { connection: connectionId, error: error.code ?? error.message });
    });
    const stopHeartbeat = startHeartbeat(webSocket, resolved.pingIntervalMs, () => {
      logger.warn('connection terminated: missed pong', { connection: connectionId });
    });
    startSendStallGuard(webSocket, resolved.stallTimeoutMs, (stalledForMs) => {
      logger.warn('connection closed: send stalled, the client stopped reading', {
        connection: connectionId,
        stalledForMs: Math.round(stalledForMs),
        bufferedAmount: webSocket.bufferedAmount,
      });
    });
    return stopHeartbeat;
  };

  const openConnection = (webSocket: WebSocket, request: IncomingMessage) => {
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
        log,
      });
    } catch (error) {
      stopHeartbeat();
      logger.error('connection handler failed', { connection: connectionId, error: String(error) });
      port.close(CloseCode.InternalError, 'connection setup failed');
      port.terminate({ code: CloseCode.InternalError, reason: 'connection setup failed' });
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
      });
  };

  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    httpConnections.upgraded(request.socket);
    const decision = decide('upgrade', request);
    if (!decision.ok) {
      logRefusal('upgrade', decision, request);
      return rejectUpgrade(socket, decision);
    }
    pendingUpgrades += 1;
    let upgraded = false;
    // handleUpgrade answers an invalid handshake itself (400) without calling back; release the slot then.
    socket.once('close', () => {
      if (!upgraded) {
        upgraded = true;
        pendingUpgrades -= 1;
      }
    });
    webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
      upgraded = true;
      pendingUpgrades -= 1;
      if (closing !== undefined) {
        webSocket.close(CloseCode.GoingAway, 'server is shutting down');
        return;
      }
      const resume = decision.resume;
      if (resume === undefined) {
        openConnection(webSocket, request);
        return;
      }
      prepareSocket(webSocket, resume.session.connectionId);
      resumes?.attach(resume.session, webSocket, resume.received, request.socket.remoteAddress);
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
    close() {
      closing ??= (async () => {
        const serverClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        httpServer.closeIdleConnections();
        const pending = [...sessions].map((session) => {
          session.shutdown();
          return session.done;
        });
        await Promise.allSettled(pending);
        httpServer.closeAllConnections();
        webSocketServer.close();
        await serverClosed;
      })();
      return closing;
    },
  };
}
