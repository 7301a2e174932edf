// The checks every store makes before it touches anything: session ids (untrusted input), saves, list queries and
// cursors; written once so the four stores refuse the same input with the same error.
import {
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_SESSION_BYTES,
  type ListSessionsQuery,
  MAX_LIST_LIMIT,
  MAX_SESSION_ID_LENGTH,
  type SessionSave,
  type SessionSummary,
} from './contract.js';
import { invalidOption, SessionStoreError, SessionStoreErrorCode } from './errors.js';

/** @throws SessionStoreError `INVALID_SESSION_ID` for anything but a string of 1…1 024 characters. */
export function checkSessionId(sessionId: unknown): string {
  if (
    typeof sessionId !== 'string' ||
    sessionId.length === 0 ||
    sessionId.length > MAX_SESSION_ID_LENGTH ||
    sessionId.includes('\u0000')
  ) {
    throw new SessionStoreError(
      SessionStoreErrorCode.InvalidSessionId,
      `a session id must be a string of 1 to ${MAX_SESSION_ID_LENGTH} characters without NUL, got ${typeof sessionId === 'string' ? `${sessionId.length} characters` : typeof sessionId}`,
    );
  }
  return sessionId;
}

function invalidWrite(sessionId: string, what: string): SessionStoreError {
  return new SessionStoreError(
    SessionStoreErrorCode.InvalidWrite,
    `cannot save session ${sessionId}: ${what}`,
    {
      sessionId,
    },
  );
}

/** A save with its defaults applied. */
export interface CheckedSave<Entry> {
  readonly sessionId: string;
  readonly expectedVersion: number;
  readonly cwd: string;
  readonly title: string | null | undefined;
  readonly state: Readonly<Record<string, unknown>> | undefined;
  readonly append: readonly Entry[];
  readonly updatedAt: string;
}

/** @throws SessionStoreError `INVALID_SESSION_ID` / `INVALID_WRITE`. */
export function checkSave<Entry>(write: SessionSave<Entry>): CheckedSave<Entry> {
  const sessionId = checkSessionId(write?.sessionId);
  const { expectedVersion, cwd, title, state, append } = write;
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw invalidWrite(sessionId, 'expectedVersion must be a non-negative integer');
  }
  // NUL is refused in the text columns because Postgres text cannot hold it (entries and state are JSON-escaped).
  if (typeof cwd !== 'string' || cwd === '' || cwd.includes('\u0000')) {
    throw invalidWrite(sessionId, 'cwd must be a non-empty string without NUL');
  }
  if (title !== undefined && title !== null && (typeof title !== 'string' || title.includes('\u0000'))) {
    throw invalidWrite(sessionId, 'title must be a string without NUL, or null');
  }
  if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state))) {
    throw invalidWrite(sessionId, 'state must be an object');
  }
  if (!Array.isArray(append)) throw invalidWrite(sessionId, 'append must be an array');
  const updatedAt = write.updatedAt ?? new Date().toISOString();
  if (typeof updatedAt !== 'string' || Number.isNaN(Date.parse(updatedAt))) {
    throw invalidWrite(sessionId, 'updatedAt must be an ISO 8601 date');
  }
  return {
    sessionId,
    expectedVersion,
    cwd,
    title,
    state,
    append,
    updatedAt: new Date(updatedAt).toISOString(),
  };
}

/** The stale-write refusal every store throws. */
export function staleWrite(
  sessionId: string,
  expectedVersion: number,
  actualVersion: number,
): SessionStoreError {
  return new SessionStoreError(
    SessionStoreErrorCode.StaleWrite,
    `session ${sessionId} was saved by another writer (stored version ${actualVersion}, this writer expected ${expectedVersion}); ` +
      'nothing was written: load the session again and retry the turn',
    { sessionId, expectedVersion, actualVersion },
  );
}

/** A save for a session that is not stored. */
export function sessionNotStored(sessionId: string, expectedVersion: number): SessionStoreError {
  return new SessionStoreError(
    SessionStoreErrorCode.SessionNotFound,
    `session ${sessionId} is not stored (deleted?), so version ${expectedVersion} cannot be extended; start a new session`,
    { sessionId, expectedVersion, actualVersion: 0 },
  );
}

/** The size refusal every store throws. */
export function sessionTooLarge(
  sessionId: string,
  bytes: number,
  maxSessionBytes: number,
): SessionStoreError {
  return new SessionStoreError(
    SessionStoreErrorCode.SessionTooLarge,
    `session ${sessionId} would grow to ${bytes} bytes, past this store's bound of ${maxSessionBytes} (maxSessionBytes); ` +
      'the turn was not saved and the stored session is unchanged: start a new session, or raise maxSessionBytes',
    { sessionId, bytes, maxSessionBytes },
  );
}

/** A checked `list` query: the limit, and the cursor's position (exclusive) when one was given. */
export interface CheckedQuery {
  readonly cwd: string | undefined;
  readonly limit: number;
  readonly after: { readonly updatedAt: string; readonly sessionId: string } | undefined;
}

/** @throws SessionStoreError `INVALID_CURSOR`, `INVALID_OPTION` for a bad limit. */
export function checkQuery(query: ListSessionsQuery = {}): CheckedQuery {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw invalidOption('limit', `an integer from 1 to ${MAX_LIST_LIMIT}`, limit);
  }
  const cwd = query.cwd ?? undefined;
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd.includes('\u0000'))) {
    throw invalidOption('cwd', 'a string without NUL', cwd);
  }
  return { cwd, limit, after: query.cursor == null ? undefined : decodeCursor(query.cursor) };
}

/** The opaque cursor after `summary` (base64url of its sort key). */
export function cursorAfter(summary: SessionSummary): string {
  return Buffer.from(JSON.stringify([summary.updatedAt, summary.sessionId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: unknown): { updatedAt: string; sessionId: string } {
  try {
    if (typeof cursor !== 'string') throw new Error('not a string');
    const [updatedAt, sessionId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof updatedAt !== 'string' || Number.isNaN(Date.parse(updatedAt))) throw new Error('bad date');
    return { updatedAt, sessionId: checkSessionId(sessionId) };
  } catch (cause) {
    throw new SessionStoreError(
      SessionStoreErrorCode.InvalidCursor,
      'this cursor was not handed out by this session store; list again without a cursor',
      {},
      { cause },
    );
  }
}

/** Newest first, ties by session id descending: the one order every store lists in. */
export function compareSummaries(a: SessionSummary, b: SessionSummary): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0;
}

/** Whether `summary` comes after the cursor position in list order. */
export function isAfter(summary: SessionSummary, after: CheckedQuery['after']): boolean {
  if (after === undefined) return true;
  return (
    compareSummaries(summary, { ...summary, updatedAt: after.updatedAt, sessionId: after.sessionId }) > 0
  );
}

/** A page from summaries already in list order and filtered: `limit + 1` looked at tells whether more follow. */
export function pageOf(sorted: readonly SessionSummary[], limit: number) {
  const sessions = sorted.slice(0, limit);
  const last = sessions.at(-1);
  return sorted.length > limit && last !== undefined
    ? { sessions, nextCursor: cursorAfter(last) }
    : { sessions };
}

/** `maxSessionBytes` checked, or the default. */
export function checkMaxSessionBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_SESSION_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption('maxSessionBytes', 'a positive integer', value);
  }
  return value;
}
