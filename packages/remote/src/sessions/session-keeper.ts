// Keeping a session across a drop, for every transport: who counts as the same client, the sessions that wait for
// theirs (bounded, each for a set time), and how the ended ones ended. The seam persistent sessions build on.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { PortClose } from '../relay/frame-port.js';
import { normalizeOrigin, presentedBearerToken } from '../shared/http-headers.js';
import type { RemoteLogger } from '../shared/logger.js';

/**
 * Who a client is, for "the same client may take its session back": a SHA-256 digest of the bearer token it presented
 * and its normalised `Origin`. A WebSocket resume and a Streamable HTTP request naming a connection must come with the
 * identity that opened the session; a stolen resume token or connection id without the bearer token gets nothing.
 * A digest, so an identity kept (in memory now, in a store later) holds no token.
 *
 * @example
 * ```ts
 * const kept = clientIdentity(request.headers);
 * isSameClient(kept, clientIdentity(later.headers)); // true for the same token and Origin
 * ```
 */
export function clientIdentity(headers: IncomingHttpHeaders): Buffer {
  const token = presentedBearerToken(headers) ?? '';
  const origin = typeof headers.origin === 'string' ? (normalizeOrigin(headers.origin) ?? '') : '';
  return createHash('sha256').update(`${token}\n${origin}`, 'utf8').digest();
}

/** Whether `presented` is the identity a session was `kept` for, compared in constant time. */
export function isSameClient(kept: Buffer, presented: Buffer): boolean {
  return kept.length === presented.length && timingSafeEqual(kept, presented);
}

/** What a session that waits for its client gives the keeper: a name for the log, and how to end it. */
export interface DetachedSession {
  /** The connection's number (the `connection` field of its log lines). */
  readonly connection: number | string;
  /**
   * Ends the session now, its agent included: its wait ran out (`expired`), or the bound on waiting sessions needs
   * its room (`evicted`, `reason` says so; it is the close reason).
   */
  end(cause: 'expired' | 'evicted', reason: string): void;
}

/** How a kept session ended, remembered so a client that comes back late hears why instead of "unknown". */
export interface SessionEnd {
  /**
   * `expired`: its client did not come back in time; `overflow`: its client can no longer catch up (what it missed
   * was dropped); `ended`: any other end (closed, evicted, shut down).
   */
  readonly reason: 'expired' | 'ended' | 'overflow';
  /** The close of its connection, when the transport tells it (Streamable HTTP's 404 names it). */
  readonly close?: PortClose;
}

/**
 * Where a server keeps sessions across a drop, whatever their transport. One implementation per server, shared by its
 * WebSocket resume (`acpkit.resume.v1`) and its Streamable HTTP connections, so the bound and the rules are the
 * server's, not a transport's:
 * - the same client: {@link clientIdentity} and {@link isSameClient};
 * - sessions waiting for their client: at most {@link maxDetached} at once (one more ends the oldest waiting, so a
 *   client that drops connections on purpose cannot park agents without bound, and new clients are never locked out
 *   by parked ones), each for at most the wait it was given;
 * - ended sessions: how each ended, for a bounded number of the latest.
 *
 * {@link MemorySessionKeeper} keeps everything in this process (a restart forgets every session). A keeper that
 * outlives a process implements the same interface.
 */
export interface SessionKeeper {
  /** Most sessions waiting at once (`maxDetachedSessions`); 0 keeps none. */
  readonly maxDetached: number;
  /** Sessions waiting now. */
  readonly detachedCount: number;
  /**
   * `session` lost its client and waits for it, at most `waitMs`: then its `end('expired', ...)` is called. Past
   * {@link maxDetached}, the oldest waiting is ended (`end('evicted', ...)`; that may be `session` itself when the
   * bound is 0). Returns whether `session` waits. Detaching a session that waits already restarts nothing.
   */
  detach(session: DetachedSession, waitMs: number): boolean;
  /** `session` has its client again, or ended: it waits no more (nothing happens when it did not wait). */
  reattach(session: DetachedSession): void;
  /** Remembers how the session known by `key` (a resume token's digest, an `Acp-Connection-Id`) ended. */
  remember(key: string, end: SessionEnd): void;
  /** How the session known by `key` ended, if it is remembered. */
  endOf(key: string): SessionEnd | undefined;
}

/** Options of {@link MemorySessionKeeper}. */
export interface MemorySessionKeeperOptions {
  /** Most sessions waiting at once (`maxDetachedSessions`). */
  readonly maxDetached: number;
  readonly logger: RemoteLogger;
  /** Told each time the bound ends a waiting session (the `detached_sessions` limit metric). */
  readonly onEvicted?: () => void;
  /** How many ended sessions are remembered (default 4096: a few hundred KiB at most). */
  readonly rememberedEnds?: number;
}

/**
 * The {@link SessionKeeper} of one process: waiting sessions in insertion order with one timer each, and the latest
 * ends in a map that forgets the oldest first.
 *
 * @example
 * ```ts
 * const keeper = new MemorySessionKeeper({ maxDetached: 64, logger, onEvicted: () => metrics.limitReached('detached_sessions') });
 * if (keeper.detach(session, 60_000)) logger.info('session kept');
 * ```
 */
export class MemorySessionKeeper implements SessionKeeper {
  readonly maxDetached: number;
  /** Oldest first (a `Map` keeps insertion order), with each one's wait timer. */
  readonly #waiting = new Map<DetachedSession, NodeJS.Timeout>();
  readonly #ends = new Map<string, SessionEnd>();
  readonly #options: MemorySessionKeeperOptions;

  constructor(options: MemorySessionKeeperOptions) {
    this.#options = options;
    this.maxDetached = options.maxDetached;
  }

  get detachedCount(): number {
    return this.#waiting.size;
  }

  detach(session: DetachedSession, waitMs: number): boolean {
    if (this.#waiting.has(session)) return true;
    const timer = setTimeout(() => {
      this.#waiting.delete(session);
      session.end('expired', `the client did not come back within ${waitMs} ms`);
    }, waitMs);
    timer.unref();
    this.#waiting.set(session, timer);
    if (this.#waiting.size <= this.maxDetached) return true;
    const [oldest, oldestTimer] = this.#waiting.entries().next().value!;
    clearTimeout(oldestTimer);
    this.#waiting.delete(oldest);
    this.#options.logger.info('detached session ended to make room for another', {
      connection: oldest.connection,
      maxDetachedSessions: this.maxDetached,
    });
    this.#options.onEvicted?.();
    oldest.end('evicted', `resume window cut short: more than ${this.maxDetached} detached sessions`);
    return oldest !== session;
  }

  reattach(session: DetachedSession): void {
    clearTimeout(this.#waiting.get(session));
    this.#waiting.delete(session);
  }

  remember(key: string, end: SessionEnd): void {
    this.#ends.delete(key);
    this.#ends.set(key, end);
    if (this.#ends.size > (this.#options.rememberedEnds ?? 4096)) {
      const oldest = this.#ends.keys().next().value;
      if (oldest !== undefined) this.#ends.delete(oldest);
    }
  }

  endOf(key: string): SessionEnd | undefined {
    return this.#ends.get(key);
  }
}
