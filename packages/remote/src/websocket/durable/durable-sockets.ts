// The server's RFD WebSocket connections that a `stream/resume` can take over (the durable-resume draft), kept across
// a drop by the server's SessionKeeper: where a resume finds its connection, and why one is refused.
import type { WebSocket } from 'ws';
import type { PortClose } from '../../relay/frame-port.js';
import { isSameClient, type SessionKeeper } from '../../sessions/session-keeper.js';
import { DurableRefusalReason, type ResumableRetention } from '../../shared/durable-resume.js';
import type { RemoteLogger } from '../../shared/logger.js';
import { parseLastEventId } from '../../streamable-http/protocol.js';
import { type StreamResumeRefusal, type StreamResumeRequest, streamResumeAnswer } from '../stream-resume.js';
import { DurableSocket, type DurableSocketSettings } from './durable-socket.js';

/** The outcome of a `stream/resume`: the connection now on the socket (its number), or the refusal to send. */
export type DurableResumeOutcome =
  | { readonly ok: true; readonly connection: number }
  | { readonly ok: false; readonly refusal: StreamResumeRefusal };

/** Why a `stream/resume` is refused, in words a person can act on, by reason. */
const REFUSALS: Readonly<Record<'unknown' | 'expired' | 'ended', string>> = {
  unknown:
    'this server does not hold that connection, or never sent that cursor (a restart, another instance, another client)',
  expired:
    'the messages after that cursor are no longer kept (past retention, or the connection waited too long)',
  ended: 'the connection ended (its agent exited, the client closed it, the server shut it down)',
};

function refused(reason: 'unknown' | 'expired' | 'ended', why = REFUSALS[reason]): DurableResumeOutcome {
  return {
    ok: false,
    refusal: {
      reason,
      message: `${why}; send initialize on this socket (a new connection) and resume the sessions (session/resume or session/load)`,
    },
  };
}

/**
 * The RFD WebSocket connections of one server that keep their messages for a resume (`resumeWindowMs` > 0), by
 * `Acp-Connection-Id`. A connection whose socket dropped uncleanly waits for its client in the server's
 * {@link SessionKeeper} (with the Streamable HTTP connections and acpkit.resume.v1 sessions: one bound, one identity
 * rule, one memory of how connections ended) for the resume window; a `stream/resume` from the same client within it
 * puts the new socket under the connection ({@link resume}). Everything lives in memory: a restarted server knows
 * no connection (`unknown`).
 *
 * @example
 * ```ts
 * const sockets = new DurableSockets(settings, keeper, logger);
 * const resume = sockets.open(connectionId, clientIdentity(request.headers), 7); // the port's PortResume
 * ```
 */
export class DurableSockets {
  readonly #held = new Map<string, DurableSocket>();

  constructor(
    readonly settings: DurableSocketSettings,
    private readonly keeper: SessionKeeper,
    private readonly logger: RemoteLogger,
  ) {}

  /**
   * The registry of a server with these options and the retention its Streamable HTTP side advertises: none when
   * nothing is kept (`resumeWindowMs` 0).
   */
  static forServer(
    options: {
      readonly resumeWindowMs: number;
      readonly resumeBufferBytes: number;
      readonly maxMessageBytes: number;
    },
    advertised: ResumableRetention | undefined,
    keeper: SessionKeeper,
    logger: RemoteLogger,
  ): DurableSockets | undefined {
    if (options.resumeWindowMs <= 0 || advertised === undefined) return undefined;
    const settings = {
      // As Streamable HTTP's retention: resumeBufferBytes plus one message.
      maxBytes: options.resumeBufferBytes + options.maxMessageBytes,
      messageBytes: options.maxMessageBytes,
      windowMs: options.resumeWindowMs,
      advertised,
    };
    return new DurableSockets(settings, keeper, logger);
  }

  /** Connections held now (attached or waiting for their client). */
  get size(): number {
    return this.#held.size;
  }

  /** Whether a connection with this id is held for the client with `identity` (an upgrade that may resume it). */
  holds(connectionId: string, identity: Buffer): boolean {
    const held = this.#held.get(connectionId);
    return held !== undefined && isSameClient(held.identity, identity);
  }

  /** A new RFD WebSocket connection: the resume layer to give its port. */
  open(connectionId: string, identity: Buffer, connection: number): DurableSocket {
    const socket = new DurableSocket(connectionId, identity, connection, this.settings, {
      detached: (held, close) => this.#detached(held, close),
      ended: (held, close) => this.#ended(held, close),
    });
    this.#held.set(connectionId, socket);
    return socket;
  }

  /**
   * A socket's first frame was `stream/resume` (`request`, well-formed) from a client with `identity`: the connection
   * it names is put on `socket` (answered, what followed the cursor sent again, then live), or the refusal is returned
   * for the caller to send. A cursor past retention ends the connection: its client can never catch up.
   */
  resume(
    request: Extract<StreamResumeRequest, { ok: true }>,
    identity: Buffer,
    socket: WebSocket,
    remoteAddress: unknown,
  ): DurableResumeOutcome {
    const held = this.#held.get(request.connectionId);
    if (held === undefined) {
      const end = this.keeper.endOf(request.connectionId)?.reason;
      return refused(end === undefined ? 'unknown' : end === 'ended' ? 'ended' : 'expired');
    }
    // Another client is told what an unknown connection is told: nothing about other clients' connections.
    if (!isSameClient(held.identity, identity)) return refused('unknown');
    const port = held.port;
    if (port === undefined || port.isClosing) return refused('ended');
    const cursor = request.cursor === undefined ? 0 : parseLastEventId(request.cursor);
    if (typeof cursor !== 'number') return refused('unknown', 'that cursor is not one this server issued');
    const check = held.check(cursor);
    if (check === 'ahead') return refused('unknown', 'that cursor was never sent on that connection');
    if (check === 'expired') {
      // The client's cursor only moves forward from here, never back into what was dropped: end the connection.
      this.keeper.remember(held.connectionId, { reason: 'expired' });
      this.logger.info('resume impossible; connection ended', {
        connection: held.connection,
        reason: DurableRefusalReason.Expired,
      });
      port.terminate({ code: 1001, reason: 'resume impossible: past retention' });
      return refused('expired');
    }
    const wasDetached = held.detachedAt !== undefined;
    const downtimeMs = wasDetached ? Math.round(performance.now() - held.detachedAt!) : 0;
    if (!port.attach(socket)) return refused('ended');
    this.#reattached(held);
    const { latest, all } = held.turnStates();
    const answer = request.id === undefined ? undefined : streamResumeAnswer(request.id, latest, all);
    const replayedFrames = held.resumed(cursor, answer);
    this.logger.info('connection resumed', {
      connection: held.connection,
      wire: 'durable-resume',
      remoteAddress,
      downtimeMs,
      replayedFrames,
      takeover: !wasDetached,
    });
    return { ok: true, connection: held.connection };
  }

  #detached(held: DurableSocket, close: PortClose): void {
    held.detachedAt = performance.now();
    const { windowMs } = this.settings;
    // The line every transport logs for a kept connection.
    this.logger.info('connection interrupted; session kept for resume', {
      connection: held.connection,
      transport: 'websocket',
      wire: 'durable-resume',
      code: close.code,
      windowMs,
    });
    held.waiting = {
      connection: held.connection,
      end: (cause, reason) => {
        held.waiting = undefined;
        const expired = cause === 'expired';
        if (expired)
          this.logger.info('resume window expired; session ended', { connection: held.connection, windowMs });
        this.keeper.remember(held.connectionId, { reason: expired ? 'expired' : 'ended' });
        held.port?.terminate({ code: close.code, reason: expired ? 'resume window expired' : reason });
      },
    };
    this.keeper.detach(held.waiting, windowMs);
  }

  #reattached(held: DurableSocket): void {
    if (held.waiting !== undefined) this.keeper.reattach(held.waiting);
    held.waiting = undefined;
    held.detachedAt = undefined;
  }

  #ended(held: DurableSocket, close: PortClose): void {
    this.#reattached(held);
    this.#held.delete(held.connectionId);
    if (this.keeper.endOf(held.connectionId) === undefined)
      this.keeper.remember(held.connectionId, { reason: 'ended', close });
  }
}
