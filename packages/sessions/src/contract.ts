// The session store contract: what every store keeps per session (a header, adapter state, and an append-only log
// of entries, one batch per turn), how a turn is saved (append with optimistic versioning), and how sessions are
// listed (by cwd, newest first, cursor pagination). The contract tests in ./testing.ts hold every store to it.

/**
 * One stored session, as `get` returns it.
 *
 * @example
 * ```ts
 * import type { StoredSession } from '@acpkit/sessions';
 *
 * const turns = (session: StoredSession) => session.version;
 * ```
 */
export interface StoredSession<Entry = unknown> {
  readonly sessionId: string;
  /** The working directory of the session's last save (ACP's `cwd`). */
  readonly cwd: string;
  /** A human title (shown by `session/list`), or `null`. */
  readonly title: string | null;
  /** When the session was first saved (ISO 8601, UTC, milliseconds). */
  readonly createdAt: string;
  /** When the session was last saved (ISO 8601, UTC, milliseconds). */
  readonly updatedAt: string;
  /** How many saves the session has had (1 after the first). A writer passes it back as `expectedVersion`. */
  readonly version: number;
  /**
   * The adapter's own state (a mode id, config values, tools allowed for the session, …): replaced whole by a save
   * that gives one, kept otherwise. JSON values and `Uint8Array`; the adapter validates what it reads back.
   */
  readonly state: Readonly<Record<string, unknown>>;
  /** Every entry ever appended, in order (the adapter's messages and transcript). */
  readonly entries: readonly Entry[];
  /** The stored size that counts against `maxSessionBytes` (UTF-8 bytes of the encoded entries and state). */
  readonly bytes: number;
}

/**
 * One session as `list` returns it (no entries).
 *
 * @example
 * ```ts
 * import type { SessionSummary } from '@acpkit/sessions';
 *
 * const label = (summary: SessionSummary) => summary.title ?? summary.sessionId;
 * ```
 */
export interface SessionSummary {
  readonly sessionId: string;
  readonly cwd: string;
  readonly title: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

/**
 * One save: what a turn added (`append`) and the session's header, written only when the stored version is
 * `expectedVersion` (0 creates the session). A store writes it whole or not at all.
 *
 * @example
 * ```ts
 * import type { SessionSave } from '@acpkit/sessions';
 *
 * const firstTurn: SessionSave = {
 *   sessionId: 's1',
 *   expectedVersion: 0,
 *   cwd: '/work',
 *   title: 'Fix the build',
 *   append: [{ role: 'user', content: 'Fix the build' }],
 * };
 * ```
 */
export interface SessionSave<Entry = unknown> {
  readonly sessionId: string;
  /** The version this writer last read or wrote; 0 for a session that does not exist yet. */
  readonly expectedVersion: number;
  readonly cwd: string;
  /** A new title; `undefined` keeps the stored one. */
  readonly title?: string | null | undefined;
  /** The adapter state to keep from now on; `undefined` keeps the stored one. */
  readonly state?: Readonly<Record<string, unknown>> | undefined;
  /** What this turn added, appended after the stored entries (never a rewrite of them). */
  readonly append: readonly Entry[];
  /** When the save happened (ISO 8601); default now. */
  readonly updatedAt?: string | undefined;
}

/**
 * What a save returns: the new version (pass it as the next `expectedVersion`).
 *
 * @example
 * ```ts
 * import type { SessionSaved } from '@acpkit/sessions';
 *
 * const next = (saved: SessionSaved) => saved.version;
 * ```
 */
export interface SessionSaved {
  readonly version: number;
  readonly updatedAt: string;
  readonly bytes: number;
}

/**
 * A `list` query.
 *
 * @example
 * ```ts
 * import type { ListSessionsQuery } from '@acpkit/sessions';
 *
 * const query: ListSessionsQuery = { cwd: '/work', limit: 20 };
 * ```
 */
export interface ListSessionsQuery {
  /** Only sessions of this working directory (exact match). */
  readonly cwd?: string | null | undefined;
  /** `nextCursor` of the previous page. */
  readonly cursor?: string | null | undefined;
  /** At most this many sessions (1…{@link MAX_LIST_LIMIT}); default {@link DEFAULT_LIST_LIMIT}. */
  readonly limit?: number | undefined;
}

/**
 * One page of `list`: newest `updatedAt` first (ties by session id, descending); `nextCursor` when more follow.
 *
 * @example
 * ```ts
 * import type { SessionPage } from '@acpkit/sessions';
 *
 * const more = (page: SessionPage) => page.nextCursor !== undefined;
 * ```
 */
export interface SessionPage {
  readonly sessions: readonly SessionSummary[];
  readonly nextCursor?: string | undefined;
}

/**
 * Where sessions are kept. Every method may fail with a `SessionStoreError` (`STALE_WRITE`, `SESSION_TOO_LARGE`,
 * `STORE_UNAVAILABLE`, `CORRUPT_RECORD`, …). `list` and `delete` are optional for a store written by hand: the
 * session handlers advertise `session/list` and `session/delete` only when the store has them.
 *
 * @example
 * ```ts
 * import { memorySessionStore, type SessionStore } from '@acpkit/sessions';
 *
 * const store: SessionStore = memorySessionStore();
 * const { version } = await store.save({ sessionId: 's1', expectedVersion: 0, cwd: '/work', append: ['hello'] });
 * await store.save({ sessionId: 's1', expectedVersion: version, cwd: '/work', append: ['again'] });
 * (await store.get('s1'))?.entries; // ['hello', 'again']
 * ```
 */
export interface SessionStore<Entry = unknown> {
  /** A short name for messages (`memory`, `file`, `sqlite`, `postgres`). */
  readonly kind: string;
  /** The per-session size bound (bytes of encoded entries and state) past which `save` is refused. */
  readonly maxSessionBytes: number;
  /** The stored session, or `undefined` when there is none. */
  get(sessionId: string): Promise<StoredSession<Entry> | undefined>;
  /** Appends a turn and updates the header, if the stored version is still `expectedVersion`. */
  save(write: SessionSave<Entry>): Promise<SessionSaved>;
  /** Sessions newest first, optionally of one `cwd`, one page at a time. */
  list?(query?: ListSessionsQuery): Promise<SessionPage>;
  /** Removes a session; `false` when there was none. */
  delete?(sessionId: string): Promise<boolean>;
  /** Releases the store's connections and handles; later calls fail with `STORE_CLOSED`. */
  close(): Promise<void>;
}

/** The default per-session bound: 32 MiB of encoded entries and state. */
export const DEFAULT_MAX_SESSION_BYTES = 32 * 1024 * 1024;
/** Sessions per `list` page when the query gives no limit (ACP's `session/list` pages by this). */
export const DEFAULT_LIST_LIMIT = 50;
/** The most sessions one `list` page may ask for. */
export const MAX_LIST_LIMIT = 1_000;
/** The longest session id a store accepts (UTF-16 code units). */
export const MAX_SESSION_ID_LENGTH = 1_024;
