// sqliteSessionStore: sessions in one SQLite file (WAL). A header row per session, indexed by (cwd, updated_at) for
// session/list, and one row per save holding that save's entries, so a turn inserts one row whatever the session's
// length. Saves run in BEGIN IMMEDIATE transactions: several processes may share the file, and a stale write is
// refused, never merged.
import { decodeValue } from '../codec.js';
import type {
  ListSessionsQuery,
  SessionPage,
  SessionSave,
  SessionSaved,
  SessionStore,
  SessionSummary,
  StoredSession,
} from '../contract.js';
import { invalidOption, SessionStoreError, SessionStoreErrorCode, storeUnavailable } from '../errors.js';
import { checkMaxSessionBytes, checkQuery, checkSave, checkSessionId, pageOf } from '../validate.js';
import { planSave, type StoredHeader } from './save-plan.js';
import {
  isCorruptionError,
  loadSqliteDriver,
  type SqliteDatabase,
  type SqliteDriver,
  type SqliteStatement,
} from './sqlite-driver.js';

/**
 * Options of {@link sqliteSessionStore}.
 *
 * @example
 * ```ts
 * import { sqliteSessionStore } from '@acpkit/sessions/sqlite';
 *
 * const store = sqliteSessionStore({ path: '/var/lib/my-agent/sessions.db', synchronous: 'full' });
 * ```
 */
export interface SqliteSessionStoreOptions {
  /** The database file (created when missing; `-wal` and `-shm` files appear beside it). */
  readonly path: string;
  /** The per-session bound. Default `DEFAULT_MAX_SESSION_BYTES` (32 MiB). */
  readonly maxSessionBytes?: number | undefined;
  /**
   * `normal` (default): a save survives the process being killed, as WAL commits reach the OS at once; a power loss
   * may lose the last saves. `full`: each save is also fsynced (survives power loss; a disk flush per turn).
   */
  readonly synchronous?: 'normal' | 'full' | undefined;
  /** The binding: `auto` (default) uses `node:sqlite` on Node ≥ 22.13 and `better-sqlite3` on Node 20. */
  readonly driver?: SqliteDriver | undefined;
  /** How long a save waits for another process's transaction on the same file. Default 5 000 ms. */
  readonly busyTimeoutMs?: number | undefined;
}

/** The schema version this code writes; a file of a newer one is refused rather than misread. */
export const SQLITE_SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS acpkit_schema_version (
  component TEXT PRIMARY KEY,
  version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS acpkit_sessions (
  session_id TEXT PRIMARY KEY,
  cwd TEXT NOT NULL,
  title TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  version INTEGER NOT NULL,
  state TEXT NOT NULL,
  state_bytes INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS acpkit_sessions_by_cwd ON acpkit_sessions (cwd, updated_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS acpkit_sessions_by_time ON acpkit_sessions (updated_at DESC, session_id DESC);
CREATE TABLE IF NOT EXISTS acpkit_session_turns (
  session_id TEXT NOT NULL REFERENCES acpkit_sessions (session_id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  entries TEXT NOT NULL,
  PRIMARY KEY (session_id, version)
) WITHOUT ROWID;
`;

const SUMMARY_COLUMNS = 'session_id, cwd, title, created_at, updated_at, version';

interface SummaryRow {
  session_id: string;
  cwd: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

interface HeaderRow extends SummaryRow {
  state: string;
  state_bytes: number;
  bytes: number;
}

function summaryOf(row: SummaryRow): SessionSummary {
  return {
    sessionId: row.session_id,
    cwd: row.cwd,
    title: row.title,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: Number(row.version),
  };
}

/** The statements of an open database, prepared once. */
class Statements {
  readonly header: SqliteStatement;
  readonly turns: SqliteStatement;
  readonly insertSession: SqliteStatement;
  readonly updateSession: SqliteStatement;
  readonly insertTurn: SqliteStatement;
  readonly deleteSession: SqliteStatement;
  /** By [cwd given][cursor given]. */
  readonly list: SqliteStatement[][];

  constructor(db: SqliteDatabase) {
    this.header = db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, state, state_bytes, bytes FROM acpkit_sessions WHERE session_id = ?`,
    );
    this.turns = db.prepare(
      'SELECT version, entries FROM acpkit_session_turns WHERE session_id = ? ORDER BY version',
    );
    this.insertSession = db.prepare(
      'INSERT INTO acpkit_sessions (session_id, cwd, title, created_at, updated_at, version, state, state_bytes, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateSession = db.prepare(
      'UPDATE acpkit_sessions SET cwd = ?, title = ?, updated_at = ?, version = ?, state = ?, state_bytes = ?, bytes = ? WHERE session_id = ?',
    );
    this.insertTurn = db.prepare(
      'INSERT INTO acpkit_session_turns (session_id, version, entries) VALUES (?, ?, ?)',
    );
    this.deleteSession = db.prepare('DELETE FROM acpkit_sessions WHERE session_id = ?');
    const order = 'ORDER BY updated_at DESC, session_id DESC LIMIT ?';
    const after = '(updated_at, session_id) < (?, ?)';
    const select = `SELECT ${SUMMARY_COLUMNS} FROM acpkit_sessions`;
    this.list = [
      [db.prepare(`${select} ${order}`), db.prepare(`${select} WHERE ${after} ${order}`)],
      [
        db.prepare(`${select} WHERE cwd = ? ${order}`),
        db.prepare(`${select} WHERE cwd = ? AND ${after} ${order}`),
      ],
    ];
  }
}

class SqliteSessionStore implements SessionStore {
  readonly kind = 'sqlite';
  readonly maxSessionBytes: number;
  readonly #options: SqliteSessionStoreOptions;
  #opening: Promise<{ db: SqliteDatabase; statements: Statements }> | undefined;
  #closed = false;

  constructor(options: SqliteSessionStoreOptions) {
    if (typeof options?.path !== 'string' || options.path === '') {
      throw invalidOption('path', 'a database file path', options?.path);
    }
    const synchronous = options.synchronous ?? 'normal';
    if (synchronous !== 'normal' && synchronous !== 'full') {
      throw invalidOption('synchronous', "'normal' or 'full'", synchronous);
    }
    const driver = options.driver ?? 'auto';
    if (!['auto', 'node:sqlite', 'better-sqlite3'].includes(driver)) {
      throw invalidOption('driver', "'auto', 'node:sqlite' or 'better-sqlite3'", driver);
    }
    const busy = options.busyTimeoutMs ?? 5_000;
    if (!Number.isSafeInteger(busy) || busy < 0)
      throw invalidOption('busyTimeoutMs', 'a non-negative integer', busy);
    this.maxSessionBytes = checkMaxSessionBytes(options.maxSessionBytes);
    this.#options = { ...options, synchronous, driver, busyTimeoutMs: busy };
  }

  /** Which binding the store opened the file with (after the first call). */
  async driver(): Promise<string> {
    return (await loadSqliteDriver(this.#options.driver ?? 'auto')).name;
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const id = checkSessionId(sessionId);
    return this.#run(id, ({ statements }) => {
      const row = statements.header.get(id) as HeaderRow | undefined;
      if (row === undefined) return undefined;
      const entries: unknown[] = [];
      for (const turn of statements.turns.all(id) as { version: number; entries: string }[]) {
        const decoded = this.#decode(turn.entries, id, `acpkit_session_turns version ${turn.version}`);
        if (!Array.isArray(decoded)) throw this.#corrupt(id, `acpkit_session_turns version ${turn.version}`);
        for (const entry of decoded) entries.push(entry);
      }
      return {
        ...summaryOf(row),
        state: this.#decode(row.state, id, 'acpkit_sessions.state') as Record<string, unknown>,
        entries,
        bytes: Number(row.bytes),
      };
    });
  }

  async save(write: SessionSave): Promise<SessionSaved> {
    const save = checkSave(write);
    return this.#run(save.sessionId, ({ db, statements }) => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const row = statements.header.get(save.sessionId) as HeaderRow | undefined;
        const stored: StoredHeader | undefined =
          row === undefined
            ? undefined
            : {
                version: Number(row.version),
                title: row.title,
                createdAt: row.created_at,
                stateText: row.state,
                stateBytes: Number(row.state_bytes),
                bytes: Number(row.bytes),
              };
        const plan = planSave(save, stored, this.maxSessionBytes);
        if (plan.create) {
          statements.insertSession.run(
            save.sessionId,
            save.cwd,
            plan.title,
            plan.createdAt,
            save.updatedAt,
            plan.version,
            plan.stateText,
            plan.stateBytes,
            plan.bytes,
          );
        } else {
          statements.updateSession.run(
            save.cwd,
            plan.title,
            save.updatedAt,
            plan.version,
            plan.stateText,
            plan.stateBytes,
            plan.bytes,
            save.sessionId,
          );
        }
        statements.insertTurn.run(save.sessionId, plan.version, plan.entriesText);
        db.exec('COMMIT');
        return { version: plan.version, updatedAt: save.updatedAt, bytes: plan.bytes };
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async list(query?: ListSessionsQuery): Promise<SessionPage> {
    const { cwd, limit, after } = checkQuery(query);
    return this.#run(undefined, ({ statements }) => {
      const statement = statements.list[cwd === undefined ? 0 : 1]?.[
        after === undefined ? 0 : 1
      ] as SqliteStatement;
      const parameters: unknown[] = [];
      if (cwd !== undefined) parameters.push(cwd);
      if (after !== undefined) parameters.push(after.updatedAt, after.sessionId);
      parameters.push(limit + 1);
      return pageOf((statement.all(...parameters) as SummaryRow[]).map(summaryOf), limit);
    });
  }

  async delete(sessionId: string): Promise<boolean> {
    const id = checkSessionId(sessionId);
    return this.#run(id, ({ statements }) => Number(statements.deleteSession.run(id).changes) > 0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    this.#opening = undefined;
    if (opening !== undefined) (await opening.catch(() => undefined))?.db.close();
  }

  /** Runs `task` on the open database; the binding's failures become SessionStoreErrors. */
  async #run<Result>(
    sessionId: string | undefined,
    task: (open: { db: SqliteDatabase; statements: Statements }) => Result,
  ): Promise<Result> {
    if (this.#closed) {
      throw new SessionStoreError(SessionStoreErrorCode.StoreClosed, 'this SQLite session store was closed');
    }
    this.#opening ??= this.#open();
    const open = await this.#opening;
    try {
      return task(open);
    } catch (error) {
      throw this.#wrap(error, sessionId);
    }
  }

  async #open(): Promise<{ db: SqliteDatabase; statements: Statements }> {
    const { path, synchronous, busyTimeoutMs } = this.#options;
    const binding = await loadSqliteDriver(this.#options.driver ?? 'auto').catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    let db: SqliteDatabase | undefined;
    try {
      db = binding.open(path);
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      db.exec('PRAGMA foreign_keys = ON');
      db.exec('BEGIN IMMEDIATE');
      try {
        db.exec(SCHEMA);
        const row = db
          .prepare("SELECT version FROM acpkit_schema_version WHERE component = 'sessions'")
          .get() as { version: number } | undefined;
        if (row === undefined) {
          db.prepare("INSERT INTO acpkit_schema_version (component, version) VALUES ('sessions', ?)").run(
            SQLITE_SCHEMA_VERSION,
          );
        } else if (Number(row.version) > SQLITE_SCHEMA_VERSION) {
          throw new SessionStoreError(
            SessionStoreErrorCode.StoreUnavailable,
            `${path} holds sessions schema version ${row.version}, newer than this @acpkit/sessions (${SQLITE_SCHEMA_VERSION}); upgrade @acpkit/sessions`,
          );
        }
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
      return { db, statements: new Statements(db) };
    } catch (error) {
      db?.close();
      this.#opening = undefined;
      throw this.#wrap(error, undefined);
    }
  }

  #wrap(error: unknown, sessionId: string | undefined): unknown {
    if (SessionStoreError.isInstance(error)) return error;
    if (isCorruptionError(error)) {
      return new SessionStoreError(
        SessionStoreErrorCode.CorruptRecord,
        `the SQLite file ${this.#options.path} is not a sessions database or is damaged (${(error as Error).message}); restore it from a backup, or point the store at a new file`,
        { sessionId, location: this.#options.path },
        { cause: error },
      );
    }
    return storeUnavailable(`SQLite (${this.#options.path})`, error, sessionId);
  }

  #decode(text: string, sessionId: string, location: string): unknown {
    try {
      return decodeValue(text);
    } catch (cause) {
      throw this.#corrupt(sessionId, location, cause);
    }
  }

  #corrupt(sessionId: string, location: string, cause?: unknown): SessionStoreError {
    return new SessionStoreError(
      SessionStoreErrorCode.CorruptRecord,
      `session ${sessionId} in ${this.#options.path} has a row that cannot be read (${location}); other sessions are unaffected. Restore it from a backup or delete the session`,
      { sessionId, location: `${this.#options.path}: ${location}` },
      { cause },
    );
  }
}

/**
 * A session store in one SQLite file: the embedded default for sessions that must outlive the process. WAL, so
 * readers never wait for a writer; indexed by `cwd` and `updatedAt` for `session/list`; one row per turn, so a save
 * costs the same at any session length. Uses Node's built-in `node:sqlite` on Node ≥ 22.13 and `better-sqlite3`
 * (an optional peer: `npm install better-sqlite3`) on Node 20. Several processes on one machine may share the file.
 *
 * @example
 * ```ts
 * import { createAiSdkAgent } from '@acpkit/ai-sdk';
 * import { sqliteSessionStore } from '@acpkit/sessions/sqlite';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * const sessionStore = sqliteSessionStore({ path: './sessions.db' });
 * export const createAgent = () => createAiSdkAgent({ name: 'helper', version: '1.0.0', model, sessionStore });
 * ```
 */
export function sqliteSessionStore(
  options: SqliteSessionStoreOptions,
): SessionStore & { driver(): Promise<string> } {
  return new SqliteSessionStore(options);
}
