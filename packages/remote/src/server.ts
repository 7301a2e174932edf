import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { CloseCode } from './constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
import { startHeartbeat } from './heartbeat.js';
import { hardPayloadCap } from './limits.js';
import type { RemoteLogger } from './logger.js';
import { buildServerMetadata, type ServerMetadata } from './metadata.js';
import type { ServerPaths } from './mount-path.js';
import type { ResolvedServeOptions } from './options-validation.js';
import { checkBearer, checkHostAndOrigin, type RequestDecision } from './security.js';
import { startSendStallGuard } from './send-stall-guard.js';

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
  /** Number of open WebSocket connections. */
  readonly connectionCount: number;
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
}

export type ConnectionHandler = (socket: WebSocket, context: ConnectionContext) => ConnectionSession;

function requestPath(request: IncomingMessage): string | undefined {
  const raw = request.url ?? '';
  if (!raw.startsWith('/')) return undefined;
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

function rejectUpgrade(socket: Duplex, decision: Exclude<RequestDecision, { ok: true }>): void {
  const body = decision.body;
  const headers = [
    `HTTP/1.1 ${decision.status} ${STATUS_CODES[decision.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(decision.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.on('error', () => {});
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

function respond(response: ServerResponse, decision: Exclude<RequestDecision, { ok: true }>): void {
  response.writeHead(decision.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(decision.body),
    ...decision.headers,
  });
  response.end(decision.body);
}

function formatUrlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Starts the HTTP + WebSocket server shared by `serveAcp` and `serveCommand`: routes, security checks before the
 * upgrade, connection cap, heartbeats, and an idempotent close that waits for every connection's teardown.
 */
export async function startRemoteServer(
  resolved: ResolvedServeOptions,
  handleConnection: ConnectionHandler,
): Promise<RemoteServer> {
  const { paths, policy, logger } = resolved;
  const metadata = buildServerMetadata({
    paths,
    authRequired: policy.bearerToken !== undefined,
    maxMessageBytes: resolved.maxMessageBytes,
    remoteCwd: resolved.remoteCwd,
    useUnstableProtocol: resolved.useUnstableProtocol,
  });
  const metadataBody = `${JSON.stringify(metadata)}\n`;
  const sessions = new Set<ConnectionSession>();
  let pendingUpgrades = 0;
  let nextConnectionId = 1;
  let closing: Promise<void> | undefined;

  const webSocketServer = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: hardPayloadCap(resolved.maxMessageBytes),
  });

  const handleRequest = (request: IncomingMessage, response: ServerResponse) => {
    const hostAndOrigin = checkHostAndOrigin(request.headers, policy);
    if (!hostAndOrigin.ok) return respond(response, hostAndOrigin);
    const path = requestPath(request);
    if (path !== paths.health && path !== paths.metadata) {
      return respond(response, { ok: false, status: 404, body: 'not found\n' });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return respond(response, {
        ok: false,
        status: 405,
        body: 'method not allowed\n',
        headers: { Allow: 'GET, HEAD' },
      });
    }
    if (path === paths.health) {
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 3 });
      response.end(request.method === 'HEAD' ? undefined : 'ok\n');
      return;
    }
    // Metadata names the remote cwd, so it needs the token when one is configured.
    const bearer = checkBearer(request.headers, policy);
    if (!bearer.ok) return respond(response, bearer);
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(metadataBody),
      'Cache-Control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : metadataBody);
  };
  const httpServer = resolved.tls
    ? createHttpsServer({ ...resolved.tls, requireHostHeader: false }, handleRequest)
    : createServer({ requireHostHeader: false }, handleRequest);

  httpServer.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Malformed requests get 400 from us instead of crashing or hanging (webpack-dev-server lesson).
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 12\r\n\r\nbad request\n');
  });

  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    if (closing !== undefined)
      return rejectUpgrade(socket, { ok: false, status: 503, body: 'server is shutting down\n' });
    const hostAndOrigin = checkHostAndOrigin(request.headers, policy);
    if (!hostAndOrigin.ok) return rejectUpgrade(socket, hostAndOrigin);
    const path = requestPath(request);
    if (path !== paths.websocket && path !== paths.metadata) {
      return rejectUpgrade(socket, { ok: false, status: 404, body: 'not found\n' });
    }
    const bearer = checkBearer(request.headers, policy);
    if (!bearer.ok) return rejectUpgrade(socket, bearer);
    if (sessions.size + pendingUpgrades >= resolved.maxConnections) {
      logger.warn('connection refused: maxConnections reached', { maxConnections: resolved.maxConnections });
      return rejectUpgrade(socket, { ok: false, status: 503, body: 'too many connections\n' });
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
    const remoteAddress = request.socket.remoteAddress;
    webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
      upgraded = true;
      pendingUpgrades -= 1;
      if (closing !== undefined) {
        webSocket.close(CloseCode.GoingAway, 'server is shutting down');
        return;
      }
      const connectionId = nextConnectionId++;
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
      logger.info('connection opened', { connection: connectionId, remoteAddress });
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
      let session: ConnectionSession;
      try {
        session = handleConnection(webSocket, {
          maxMessageBytes: resolved.maxMessageBytes,
          logger,
          connectionId,
        });
      } catch (error) {
        stopHeartbeat();
        logger.error('connection handler failed', { connection: connectionId, error: String(error) });
        webSocket.close(CloseCode.InternalError, 'connection setup failed');
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
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new AcpRemoteError(
          AcpRemoteErrorCode.ListenFailed,
          `cannot listen on ${resolved.host}:${resolved.port}: ${error.code ?? error.message}`,
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
