// How the server tells of what its front door refused: one log line (rate-limited) and one counter each.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Refusal } from '../seams/refusal.js';
import type { ServerMetrics } from '../seams/server-metrics.js';
import { type RemoteLogger, rateLimitLogger } from '../shared/logger.js';
import { type Transport, transportLabel } from '../shared/transport.js';
import { RESUME_REFUSED_HEADER } from '../websocket/resume/resume-protocol.js';
import type { EvictionReason } from './http-connection-cap.js';

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

/**
 * Logs and counts the server's refusals: of a new `connection` (a WebSocket upgrade or a Streamable HTTP
 * `initialize`: `acpremote_connections_total` by transport), of a plain `request`
 * (`acpremote_http_requests_refused_total`), and of TCP connections over the plain HTTP cap.
 *
 * @example
 * ```ts
 * refusals.refused('connection', decision, request, 'streamable-http');
 * ```
 */
export class RefusalLog {
  readonly #log: RemoteLogger;

  constructor(
    logger: RemoteLogger,
    private readonly metrics: () => ServerMetrics,
    private readonly limits: { readonly maxConnections: number; readonly maxHttpConnections: number },
  ) {
    this.#log = rateLimitLogger(logger, REFUSAL_LOG_LIMIT);
  }

  /** A refusal admission made, of a new connection (by transport) or of a request. */
  refused(
    kind: 'connection' | 'request',
    refusal: Refusal,
    request: IncomingMessage,
    transport: Transport = 'websocket',
  ): void {
    if (kind === 'connection') this.metrics().connectionRefused(refusal.reason, transport);
    else this.metrics().requestRefused(refusal.reason);
    this.#log.info(kind === 'connection' ? 'connection refused' : 'request refused', {
      reason: refusal.reason,
      status: refusal.status,
      remoteAddress: request.socket.remoteAddress,
      path: loggedPath(request),
      ...(kind === 'connection' ? { transport: transportLabel(transport) } : {}),
      ...(refusal.reason === 'limit' ? { maxConnections: this.limits.maxConnections } : {}),
      ...(refusal.reason === 'resume' ? { resume: refusal.headers?.[RESUME_REFUSED_HEADER] } : {}),
    });
  }

  /** A TCP connection refused because the plain HTTP cap is full of connections that earn their slot. */
  overHttpCap(socket: { readonly remoteAddress?: string | undefined }): void {
    this.metrics().requestRefused('limit');
    this.#log.info('connection refused', {
      reason: 'limit',
      remoteAddress: socket.remoteAddress,
      maxHttpConnections: this.limits.maxHttpConnections,
    });
  }

  /**
   * A connection the plain HTTP cap closed to make room: idle, sending its body below the minimum pace, or its
   * client over `maxBodiesPerClient` bodies at once.
   */
  evictedFromHttpCap(
    socket: { readonly remoteAddress?: string | undefined },
    why: EvictionReason,
    maxBodiesPerClient: number,
  ): void {
    this.metrics().requestRefused('limit');
    if (why !== 'idle') this.metrics().limitReached('http_bodies');
    this.#log.info(
      why === 'idle' ? 'idle connection closed to make room' : 'slow request closed to make room',
      {
        reason: 'limit',
        remoteAddress: socket.remoteAddress,
        ...(why === 'client_bodies'
          ? { maxBodiesPerClient }
          : { maxHttpConnections: this.limits.maxHttpConnections }),
      },
    );
  }

  /** A request the HTTP parser refused (400) or that timed out (408). */
  clientError(error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>, timedOut: boolean): void {
    this.metrics().requestRefused(timedOut ? 'timeout' : 'malformed');
    this.#log.info('request refused', {
      reason: timedOut ? 'timeout' : 'malformed',
      status: timedOut ? 408 : 400,
      remoteAddress: socket.remoteAddress,
      ...(timedOut ? {} : { error: error.code ?? error.message }),
    });
  }
}
