// The server's Streamable HTTP acceptor: an `initialize` POST the endpoint read becomes a connection, through the same
// admission and the same opening path as a WebSocket's.
import type { IncomingMessage } from 'node:http';
import type { ResolvedServeOptions } from '../../options/validation.js';
import type { ConnectionOpener } from '../../seams/connection.js';
import type { Refusal } from '../../seams/refusal.js';
import type { SessionKeeper } from '../../sessions/session-keeper.js';
import { FIRST_STREAM_TIMEOUT_MS } from '../../shared/fixed-limits.js';
import { RouteKeyReader } from '../../wire/route-key-reader.js';
import { HttpServerPort } from './http-server-port.js';

/** Options of {@link HttpAcceptor}. */
export interface HttpAcceptorOptions {
  readonly resolved: ResolvedServeOptions;
  readonly opener: ConnectionOpener;
  /** The server's admission of a new connection (shutdown, drain, `maxConnections`): the refusal, logged and counted. */
  readonly admit: (request: IncomingMessage) => Refusal | undefined;
  /** The server's session keeper (where a connection without a reader waits for its client). */
  readonly sessions: SessionKeeper;
}

/**
 * Opens the Streamable HTTP connection an `initialize` POST asks for: the server's admission, then an
 * {@link HttpServerPort} opened through the server's {@link ConnectionOpener} like a WebSocket's.
 *
 * @example
 * ```ts
 * const acceptor = new HttpAcceptor({ resolved, opener, admit, sessions });
 * const opened = acceptor.open(request, globalThis.crypto.randomUUID()); // a port, or the refusal to answer
 * ```
 */
export class HttpAcceptor {
  /** Reads the route keys of a frame a port sends without them (the relay's own answers). */
  readonly #routeKeys = new RouteKeyReader();

  constructor(private readonly options: HttpAcceptorOptions) {}

  /** The connection for an `initialize` POST (`acpConnectionId` is its `Acp-Connection-Id`), or why not. */
  open(request: IncomingMessage, acpConnectionId: string): HttpServerPort | Refusal {
    const { resolved, opener, sessions } = this.options;
    const refusal = this.options.admit(request);
    if (refusal !== undefined) return refusal;
    const { maxMessageBytes, resumeBufferBytes, resumeWindowMs, pingIntervalMs, stallTimeoutMs } = resolved;
    let port: HttpServerPort | undefined;
    opener.open({
      transport: 'streamable-http',
      remoteAddress: request.socket.remoteAddress,
      makePort: (_connectionId, log) => {
        const made = new HttpServerPort({
          connectionId: acpConnectionId,
          log,
          metrics: opener.metrics.forTransport('streamable-http'),
          // As a replay buffer: resumeBufferBytes plus one message, so one large event never costs a reader its resume.
          retention: {
            maxBytes: resumeBufferBytes + maxMessageBytes,
            messageBytes: maxMessageBytes,
            windowMs: resumeWindowMs,
          },
          keepAliveMs: pingIntervalMs,
          stallTimeoutMs,
          firstStreamTimeoutMs: FIRST_STREAM_TIMEOUT_MS,
          // A client gone without DELETE: its connection waits out the resume window (the stall timeout without one).
          detachedTimeoutMs:
            resumeWindowMs > 0 ? resumeWindowMs : stallTimeoutMs > 0 ? stallTimeoutMs : 60_000,
          sessions,
          routeKeysOf: (payload) => this.#routeKeys.read(payload),
        });
        port = made;
        return { port: made };
      },
    });
    // A port whose handler failed has ended already: the endpoint answers the POST with the reason.
    return port!;
  }
}
