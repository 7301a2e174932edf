// A server's sessions that wait for their client to come back, whatever the transport: at most a set number at once.
import type { RemoteLogger } from '../shared/logger.js';

/** What a waiting session gives the bound: a name for the log line, and how to end it when it must make room. */
export interface DetachedSession {
  /** The connection's number (the `connection` field of its log lines). */
  readonly connection: number | string;
  /** Ends the session now, its agent included; `reason` says why (the close reason). */
  evict(reason: string): void;
}

/**
 * The sessions of one server that wait for their client: a WebSocket session detached for a resume, and a Streamable
 * HTTP connection none of whose streams has a reader. At most `max` wait at once: one more ends the oldest waiting
 * (logged, and told to `onEvicted` for the metric), so a client that drops connections on purpose cannot park agents
 * without bound, and new clients are never locked out by parked ones. Shared by every transport of the server, so the
 * bound is the server's, not the transport's.
 *
 * @example
 * ```ts
 * const detached = new DetachedSessions(64, logger, () => metrics.limitReached('detached_sessions'));
 * if (detached.add(session)) startWindow(); // else the session itself had to go (max 0)
 * ```
 */
export class DetachedSessions {
  /** Oldest first (a `Set` keeps insertion order). */
  private readonly waiting = new Set<DetachedSession>();

  constructor(
    /** Most sessions waiting at once (`maxDetachedSessions`); 0 keeps none. */
    readonly max: number,
    private readonly logger: RemoteLogger,
    private readonly onEvicted: () => void = () => {},
  ) {}

  /** Sessions waiting now. */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * `session` waits for its client from now on. Past `max`, the oldest waiting is ended (that may be `session`
   * itself, when `max` is 0); returns whether `session` still waits.
   */
  add(session: DetachedSession): boolean {
    this.waiting.add(session);
    if (this.waiting.size <= this.max) return true;
    const oldest = this.waiting.values().next().value!;
    this.waiting.delete(oldest);
    this.logger.info('detached session ended to make room for another', {
      connection: oldest.connection,
      maxDetachedSessions: this.max,
    });
    this.onEvicted();
    oldest.evict(`resume window cut short: more than ${this.max} detached sessions`);
    return oldest !== session;
  }

  /** `session` has its client again, or ended. */
  delete(session: DetachedSession): void {
    this.waiting.delete(session);
  }
}
