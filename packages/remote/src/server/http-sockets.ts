// The server's plain HTTP sockets: the connection cap they live under, the event streams that leave it, and the
// answer to a request the HTTP parser refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerMetrics } from '../seams/server-metrics.js';
import { HttpConnectionCap } from './http-connection-cap.js';
import { clientErrorAnswer } from './http-endpoints.js';
import type { RefusalLog } from './refusal-log.js';

/**
 * Every TCP (or TLS) socket of a server's HTTP listener until it upgrades: admitted under `maxHttpConnections`
 * (closing the one that least earns its slot, see {@link HttpConnectionCap}), tracked through each request, and
 * counted against `maxEventStreams` once its response becomes an event stream.
 *
 * @example
 * ```ts
 * const sockets = new HttpSockets({ maxHttpConnections: 64, maxEventStreams: 1024 }, refusals, () => metrics);
 * server.on('connection', (socket) => sockets.connected(socket));
 * ```
 */
export class HttpSockets {
  readonly #cap: HttpConnectionCap;
  /** Sockets whose response is an event stream now (they left the cap). */
  readonly #eventStreams = new Set<Duplex>();

  constructor(
    private readonly limits: { readonly maxHttpConnections: number; readonly maxEventStreams: number },
    private readonly refusals: RefusalLog,
    private readonly metrics: () => ServerMetrics,
  ) {
    this.#cap = new HttpConnectionCap(limits.maxHttpConnections, (socket, why) =>
      refusals.evictedFromHttpCap(socket, why, this.#cap.maxBodiesPerClient),
    );
  }

  /** Event streams whose socket is open now, ending ones included. */
  get eventStreamCount(): number {
    return this.#eventStreams.size;
  }

  /** A new TCP (or TLS) connection: within the cap, or refused (closed at once, logged and counted). */
  connected(socket: Socket): void {
    if (this.#cap.admit(socket)) return;
    socket.destroy();
    this.refusals.overHttpCap(socket);
  }

  /** A request head arrived: its socket is busy (and its body's pace watched) until the response ends. */
  requestStarted(request: IncomingMessage, response: ServerResponse): void {
    this.#cap.requestStarted(request.socket, request);
    response.once('close', () => this.#cap.requestFinished(request.socket));
  }

  /** The socket left plain HTTP for a WebSocket: the WebSocket's limits govern it now. */
  upgraded(socket: Socket): void {
    this.#cap.upgraded(socket);
  }

  /** Whether one more event stream fits under `maxEventStreams` (false: counted as the limit reached). */
  eventStreamFits(): boolean {
    if (this.#eventStreams.size < this.limits.maxEventStreams) return true;
    this.metrics().limitReached('event_streams');
    return false;
  }

  /**
   * A GET's response became an event stream: its socket belongs to the stream now (one per stream, a takeover
   * closing the older one), not to the cap, and counts against `maxEventStreams` until it closes.
   */
  streamStarted(request: IncomingMessage): void {
    const socket = request.socket;
    this.#cap.upgraded(socket);
    this.#eventStreams.add(socket);
    socket.once('close', () => this.#eventStreams.delete(socket));
  }

  /** A request the HTTP parser refused or that timed out: 408 or 400 (logged and counted), never a crash. */
  clientError(error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    this.refusals.clientError(error, socket, timedOut);
    socket.end(clientErrorAnswer(timedOut));
  }
}
