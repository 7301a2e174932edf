// memorySessionStore: sessions in this process's memory, kept encoded (the same text the other stores write, so a
// read returns fresh objects and the bounds count what is held): at most `maxSessions` sessions and `maxTotalBytes`
// in all, least recently used dropped first; each session bounded by `maxSessionBytes`.
import { byteLength, decodeValue } from '../codec.js';
import type {
  ListSessionsQuery,
  SessionPage,
  SessionSave,
  SessionSaved,
  SessionStore,
  SessionSummary,
  StoredSession,
} from '../contract.js';
import { invalidOption, SessionStoreError, SessionStoreErrorCode } from '../errors.js';
import {
  checkMaxSessionBytes,
  checkQuery,
  checkSave,
  checkSessionId,
  compareSummaries,
  isAfter,
  pageOf,
} from '../validate.js';
import { planSave } from './save-plan.js';

/**
 * Options of {@link memorySessionStore}.
 *
 * @example
 * ```ts
 * import { memorySessionStore } from '@acpkit/sessions';
 *
 * const store = memorySessionStore({ maxSessions: 200, maxTotalBytes: 64 * 1024 * 1024 });
 * ```
 */
export interface MemorySessionStoreOptions {
  /** Sessions held at most; the least recently used is dropped past it. Default 1 000. */
  readonly maxSessions?: number | undefined;
  /** Bytes held at most over all sessions; least recently used dropped past it. Default 256 MiB. */
  readonly maxTotalBytes?: number | undefined;
  /** The per-session bound. Default `DEFAULT_MAX_SESSION_BYTES` (32 MiB). */
  readonly maxSessionBytes?: number | undefined;
}

/** The default of {@link MemorySessionStoreOptions.maxSessions}. */
export const DEFAULT_MAX_MEMORY_SESSIONS = 1_000;
/** The default of {@link MemorySessionStoreOptions.maxTotalBytes}. */
export const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;

interface HeldSession {
  summary: SessionSummary;
  state: string;
  /** One encoded array per save. */
  readonly turns: string[];
  bytes: number;
}

function positive(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(option, 'a positive integer', value);
  }
  return value;
}

class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  readonly maxSessionBytes: number;
  readonly #maxSessions: number;
  readonly #maxTotalBytes: number;
  /** Least recently used first (a Map keeps insertion order). */
  readonly #sessions = new Map<string, HeldSession>();
  #totalBytes = 0;
  #closed = false;

  constructor(options: MemorySessionStoreOptions) {
    this.#maxSessions = positive('maxSessions', options.maxSessions, DEFAULT_MAX_MEMORY_SESSIONS);
    this.#maxTotalBytes = positive('maxTotalBytes', options.maxTotalBytes, DEFAULT_MAX_MEMORY_BYTES);
    this.maxSessionBytes = checkMaxSessionBytes(options.maxSessionBytes);
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    this.#open();
    const held = this.#touch(checkSessionId(sessionId));
    if (held === undefined) return undefined;
    return {
      ...held.summary,
      state: decodeValue(held.state) as Record<string, unknown>,
      entries: held.turns.flatMap((turn) => decodeValue(turn) as unknown[]),
      bytes: held.bytes,
    };
  }

  async save(write: SessionSave): Promise<SessionSaved> {
    this.#open();
    const save = checkSave(write);
    const held = this.#sessions.get(save.sessionId);
    const plan = planSave(
      save,
      held === undefined
        ? undefined
        : {
            version: held.summary.version,
            title: held.summary.title,
            createdAt: held.summary.createdAt,
            stateText: held.state,
            stateBytes: byteLength(held.state),
            bytes: held.bytes,
          },
      this.maxSessionBytes,
    );
    const summary: SessionSummary = {
      sessionId: save.sessionId,
      cwd: save.cwd,
      title: plan.title,
      createdAt: plan.createdAt,
      updatedAt: save.updatedAt,
      version: plan.version,
    };
    const next: HeldSession = held ?? { summary, state: plan.stateText, turns: [], bytes: 0 };
    this.#totalBytes += plan.bytes - next.bytes;
    next.summary = summary;
    next.state = plan.stateText;
    next.turns.push(plan.entriesText);
    next.bytes = plan.bytes;
    this.#sessions.delete(save.sessionId);
    this.#sessions.set(save.sessionId, next);
    this.#evict(save.sessionId);
    return { version: plan.version, updatedAt: save.updatedAt, bytes: plan.bytes };
  }

  async list(query?: ListSessionsQuery): Promise<SessionPage> {
    this.#open();
    const { cwd, limit, after } = checkQuery(query);
    const matching: SessionSummary[] = [];
    for (const { summary } of this.#sessions.values()) {
      if ((cwd === undefined || summary.cwd === cwd) && isAfter(summary, after)) matching.push(summary);
    }
    return pageOf(matching.sort(compareSummaries), limit);
  }

  async delete(sessionId: string): Promise<boolean> {
    this.#open();
    const held = this.#sessions.get(checkSessionId(sessionId));
    if (held === undefined) return false;
    this.#sessions.delete(sessionId);
    this.#totalBytes -= held.bytes;
    return true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
    this.#totalBytes = 0;
  }

  #touch(sessionId: string): HeldSession | undefined {
    const held = this.#sessions.get(sessionId);
    if (held !== undefined) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, held);
    }
    return held;
  }

  /** Drops least recently used sessions past the bounds, never the one just saved. */
  #evict(keep: string): void {
    for (const [sessionId, held] of this.#sessions) {
      if (this.#sessions.size <= this.#maxSessions && this.#totalBytes <= this.#maxTotalBytes) return;
      if (sessionId === keep) continue;
      this.#sessions.delete(sessionId);
      this.#totalBytes -= held.bytes;
    }
  }

  #open(): void {
    if (this.#closed) {
      throw new SessionStoreError(SessionStoreErrorCode.StoreClosed, 'this memory session store was closed');
    }
  }
}

/**
 * A session store in this process's memory: the default of `createAiSdkAgent`. Sessions survive their connection,
 * not the process. Bounded: `maxSessions` sessions and `maxTotalBytes` in all (least recently used dropped first),
 * `maxSessionBytes` per session (a save past it is refused with `SESSION_TOO_LARGE`).
 *
 * @example
 * ```ts
 * import { memorySessionStore } from '@acpkit/sessions';
 *
 * // One store for every connection a server accepts, so any of them can load any session.
 * export const sessionStore = memorySessionStore({ maxSessions: 200 });
 * ```
 */
export function memorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  return new MemorySessionStore(options);
}
