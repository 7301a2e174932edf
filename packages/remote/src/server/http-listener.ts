// The server's HTTP(S) listener: Node's server with this package's timeouts, its events wired, bound to an address.
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ResolvedServeOptions } from '../options/validation.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import {
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_TIMEOUT_CHECK_INTERVAL_MS,
} from '../shared/fixed-limits.js';

/** What the listener hands its server's front door. */
export interface FrontDoor {
  connection(socket: Socket): void;
  request(request: IncomingMessage, response: ServerResponse): void;
  clientError(error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>): void;
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** An error of the listening server after it bound (logged; it keeps serving). */
  error(error: Error): void;
}

/** A bound listener and the addresses it serves. */
export interface Listening {
  readonly server: HttpServer | HttpsServer;
  readonly port: number;
  /** `ws(s)://HOST:PORT<mount>/ws`. */
  readonly url: string;
  /** `http(s)://HOST:PORT<mount>`. */
  readonly endpoint: string;
}

/**
 * Starts Node's HTTP (or HTTPS, with `tls`) server on the resolved host and port, each event handed to `door`.
 * Node's defaults let a silent connection live 60-90 s; these bounds are documented in docs/remote-transport.md.
 *
 * @throws {@link AcpRemoteError} `LISTEN_FAILED` when the address cannot be bound (the reason and what to do).
 */
export async function listen(resolved: ResolvedServeOptions, door: FrontDoor): Promise<Listening> {
  const httpOptions = {
    requireHostHeader: false,
    headersTimeout: HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_INTERVAL_MS,
  };
  const onRequest = (request: IncomingMessage, response: ServerResponse) => door.request(request, response);
  const server = resolved.tls
    ? createHttpsServer(
        { ...resolved.tls, ...httpOptions, handshakeTimeout: HTTP_HEADERS_TIMEOUT_MS },
        onRequest,
      )
    : createServer(httpOptions, onRequest);
  server.on('connection', (socket: Socket) => door.connection(socket));
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>) =>
    door.clientError(error, socket),
  );
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    door.upgrade(request, socket, head),
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
    server.once('error', onError);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) => door.error(error));
  const port = (server.address() as AddressInfo).port;
  const authority = `${formatUrlHost(resolved.host)}:${port}`;
  return {
    server,
    port,
    url: `${resolved.tls ? 'wss' : 'ws'}://${authority}${resolved.paths.websocket}`,
    endpoint: `${resolved.tls ? 'https' : 'http'}://${authority}${resolved.paths.metadata}`,
  };
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
