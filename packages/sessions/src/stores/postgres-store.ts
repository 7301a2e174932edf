// postgresSessionStore: sessions in Postgres, for several servers sharing one history. The same two tables as the
// SQLite store (a header row per session, one row per save), created on first use under an advisory lock with a
// version table. A save locks its header row (SELECT … FOR UPDATE), so two servers writing one session are ordered
// and the later one is refused as stale, never merged.
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
import {
  checkMaxSessionBytes,
  checkQuery,
  checkSave,
  checkSessionId,
  pageOf,
  staleWrite,
} from '../validate.js';
import { planSave } from './save-plan.js';

/**
 * The part of a `pg` client the store uses (so the store's types do not need `@types/pg`).
 *
 * @example
 * ```ts
 * import type { PostgresClientLike } from '@acpkit/sessions/postgres';
 *
 * const rows = async (client: PostgresClientLike) => (await client.query('SELECT 1 AS one')).rows;
 * ```
 */
export interface PostgresClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: pg's own row type is `any`; a narrower one would refuse pg.
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(destroy?: boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The part of a `pg.Pool` the store uses: pass your `new pg.Pool(…)` as `pool`.
 *
 * @example
 * ```ts
 * import type { PostgresPoolLike } from '@acpkit/sessions/postgres';
 *
 * const check = async (pool: PostgresPoolLike) => (await pool.connect()).release();
 * ```
 */
export interface PostgresPoolLike {
  connect(): Promise<PostgresClientLike>;
  end(): Promise<void>;
}

/**
 * Options of {@link postgresSessionStore}: a connection string (the store makes and ends its own `pg.Pool`) or a
 * pool of yours (left open on `close`).
 *
 * @example
 * ```ts
 * import { postgresSessionStore } from '@acpkit/sessions/postgres';
 *
 * const store = postgresSessionStore({ connectionString: process.env.DATABASE_URL as string, schema: 'agent' });
 * ```
 */
export type PostgresSessionStoreOptions = (
  | { readonly connectionString: string; readonly pool?: undefined }
  | { readonly pool: PostgresPoolLike; readonly connectionString?: undefined }
) & {
  /** The Postgres schema holding the tables (created when missing). Default `public`. */
  readonly schema?: string | undefined;
  /** The per-session bound. Default `DEFAULT_MAX_SESSION_BYTES` (32 MiB). */
  readonly maxSessionBytes?: number | undefined;
  /** Connections of the pool the store makes from `connectionString`. Default 10. */
  readonly maxConnections?: number | undefined;
};

/** The schema version this code writes (the `acpkit_schema_version` row of component `sessions`). */
export const POSTGRES_SCHEMA_VERSION = 1;

/** The advisory lock key that orders concurrent first uses: 'acpkit' as a number. */
const SCHEMA_LOCK = 0x6163706b6974;

function schemaSql(schema: string): string {
  const s = `"${schema}"`;
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.acpkit_schema_version (
  component TEXT PRIMARY KEY,
  version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ${s}.acpkit_sessions (
  session_id TEXT COLLATE "C" PRIMARY KEY,
  cwd TEXT NOT NULL,
  title TEXT,
  created_at TIMESTAMPTZ(3) NOT NULL,
  updated_at TIMESTAMPTZ(3) NOT NULL,
  version INTEGER NOT NULL,
  state TEXT NOT NULL,
  state_bytes BIGINT NOT NULL,
  bytes BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS acpkit_sessions_by_cwd ON ${s}.acpkit_sessions (cwd, updated_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS acpkit_sessions_by_time ON ${s}.acpkit_sessions (updated_at DESC, session_id DESC);
CREATE TABLE IF NOT EXISTS ${s}.acpkit_session_turns (
  session_id TEXT COLLATE "C" NOT NULL REFERENCES ${s}.acpkit_sessions (session_id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  entries TEXT NOT NULL,
  PRIMARY KEY (session_id, version)
);`;
}

interface SummaryRow {
  session_id: string;
  cwd: string;
  title: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

function summaryOf(row: SummaryRow): SessionSummary {
  return {
    sessionId: row.session_id,
    cwd: row.cwd,
    title: row.title,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    version: row.version,
  };
}

const SUMMARY_COLUMNS = 'session_id, cwd, title, created_at, updated_at, version';

class PostgresSessionStore implements SessionStore {
  readonly kind = 'postgres';
  readonly maxSessionBytes: number;
  readonly #schema: string;
  readonly #options: PostgresSessionStoreOptions;
  #pool: PostgresPoolLike | undefined;
  #ready: Promise<PostgresPoolLike> | undefined;
  #closed = false;

  constructor(options: PostgresSessionStoreOptions) {
    const given = options as { connectionString?: unknown; pool?: unknown } | undefined;
    if ((given?.connectionString === undefined) === (given?.pool === undefined)) {
      throw invalidOption(
        'postgresSessionStore options',
        'exactly one of { connectionString } or { pool }',
        options,
      );
    }
    if (
      given?.connectionString !== undefined &&
      (typeof given.connectionString !== 'string' || given.connectionString === '')
    ) {
      throw invalidOption('connectionString', 'a postgresql:// URL', '(redacted)');
    }
    const schema = options.schema ?? 'public';
    if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw invalidOption('schema', 'a lower-case SQL identifier ([a-z_][a-z0-9_]*)', schema);
    }
    const maxConnections = options.maxConnections ?? 10;
    if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) {
      throw invalidOption('maxConnections', 'a positive integer', maxConnections);
    }
    this.#schema = schema;
    this.#options = { ...options, maxConnections };
    this.maxSessionBytes = checkMaxSessionBytes(options.maxSessionBytes);
  }

  #table(name: string): string {
    return `"${this.#schema}".${name}`;
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const id = checkSessionId(sessionId);
    return this.#withClient(id, async (client) => {
      // One snapshot for the header and its turns, so a save in between cannot split them.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const header = await client.query(
          `SELECT ${SUMMARY_COLUMNS}, state, bytes FROM ${this.#table('acpkit_sessions')} WHERE session_id = $1`,
          [id],
        );
        const row = header.rows[0];
        if (row === undefined) return undefined;
        const turns = await client.query(
          `SELECT version, entries FROM ${this.#table('acpkit_session_turns')} WHERE session_id = $1 ORDER BY version`,
          [id],
        );
        const entries: unknown[] = [];
        for (const turn of turns.rows) {
          const decoded = this.#decode(turn.entries, id, `acpkit_session_turns version ${turn.version}`);
          if (!Array.isArray(decoded))
            throw this.#corrupt(id, `acpkit_session_turns version ${turn.version}`);
          for (const entry of decoded) entries.push(entry);
        }
        return {
          ...summaryOf(row),
          state: this.#decode(row.state, id, 'acpkit_sessions.state') as Record<string, unknown>,
          entries,
          bytes: Number(row.bytes),
        };
      } finally {
        await client.query('COMMIT');
      }
    });
  }

  async save(write: SessionSave): Promise<SessionSaved> {
    const save = checkSave(write);
    return this.#withClient(save.sessionId, async (client) => {
      await client.query('BEGIN');
      try {
        const header = await client.query(
          `SELECT version, title, created_at, state, state_bytes, bytes FROM ${this.#table('acpkit_sessions')} WHERE session_id = $1 FOR UPDATE`,
          [save.sessionId],
        );
        const row = header.rows[0];
        const plan = planSave(
          save,
          row === undefined
            ? undefined
            : {
                version: row.version,
                title: row.title,
                createdAt: row.created_at.toISOString(),
                stateText: row.state,
                stateBytes: Number(row.state_bytes),
                bytes: Number(row.bytes),
              },
          this.maxSessionBytes,
        );
        if (plan.create) {
          const inserted = await client.query(
            `INSERT INTO ${this.#table('acpkit_sessions')} (session_id, cwd, title, created_at, updated_at, version, state, state_bytes, bytes)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (session_id) DO NOTHING`,
            [
              save.sessionId,
              save.cwd,
              plan.title,
              plan.createdAt,
              save.updatedAt,
              plan.version,
              plan.stateText,
              plan.stateBytes,
              plan.bytes,
            ],
          );
          // Another server created it between our read and our insert: that writer won.
          if (inserted.rowCount !== 1) {
            await client.query('ROLLBACK');
            throw staleWrite(save.sessionId, 0, 1);
          }
        } else {
          await client.query(
            `UPDATE ${this.#table('acpkit_sessions')} SET cwd = $1, title = $2, updated_at = $3, version = $4, state = $5, state_bytes = $6, bytes = $7 WHERE session_id = $8`,
            [
              save.cwd,
              plan.title,
              save.updatedAt,
              plan.version,
              plan.stateText,
              plan.stateBytes,
              plan.bytes,
              save.sessionId,
            ],
          );
        }
        await client.query(
          `INSERT INTO ${this.#table('acpkit_session_turns')} (session_id, version, entries) VALUES ($1, $2, $3)`,
          [save.sessionId, plan.version, plan.entriesText],
        );
        await client.query('COMMIT');
        return { version: plan.version, updatedAt: save.updatedAt, bytes: plan.bytes };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async list(query?: ListSessionsQuery): Promise<SessionPage> {
    const { cwd, limit, after } = checkQuery(query);
    return this.#withClient(undefined, async (client) => {
      const conditions: string[] = [];
      const parameters: unknown[] = [];
      if (cwd !== undefined) {
        parameters.push(cwd);
        conditions.push(`cwd = $${parameters.length}`);
      }
      if (after !== undefined) {
        parameters.push(after.updatedAt, after.sessionId);
        conditions.push(
          `(updated_at, session_id) < ($${parameters.length - 1}::timestamptz, $${parameters.length})`,
        );
      }
      parameters.push(limit + 1);
      const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const result = await client.query(
        `SELECT ${SUMMARY_COLUMNS} FROM ${this.#table('acpkit_sessions')} ${where} ORDER BY updated_at DESC, session_id DESC LIMIT $${parameters.length}`,
        parameters,
      );
      return pageOf(result.rows.map(summaryOf), limit);
    });
  }

  async delete(sessionId: string): Promise<boolean> {
    const id = checkSessionId(sessionId);
    return this.#withClient(id, async (client) => {
      const result = await client.query(
        `DELETE FROM ${this.#table('acpkit_sessions')} WHERE session_id = $1`,
        [id],
      );
      return result.rowCount === 1;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Only a pool the store made is ended; a pool passed in belongs to its owner.
    if (this.#options.pool === undefined) await this.#pool?.end().catch(() => undefined);
  }

  async #withClient<Result>(
    sessionId: string | undefined,
    task: (client: PostgresClientLike) => Promise<Result>,
  ): Promise<Result> {
    if (this.#closed) {
      throw new SessionStoreError(
        SessionStoreErrorCode.StoreClosed,
        'this Postgres session store was closed',
      );
    }
    let client: PostgresClientLike;
    try {
      this.#ready ??= this.#prepare();
      const pool = await this.#ready;
      client = await pool.connect();
    } catch (error) {
      this.#ready = undefined;
      throw this.#wrap(error, sessionId);
    }
    let broken = false;
    // A socket error after a query already failed (EPIPE on a server that went away) is emitted on the client;
    // while we hold it, nobody else listens, and an unheard 'error' would crash the process.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      return await task(client);
    } catch (error) {
      broken ||= !SessionStoreError.isInstance(error);
      throw this.#wrap(error, sessionId);
    } finally {
      client.off('error', onError);
      // A connection that failed mid-query is not handed out again.
      client.release(broken);
    }
  }

  /** Makes the pool (or takes the given one) and creates the schema once. */
  async #prepare(): Promise<PostgresPoolLike> {
    let pool = this.#options.pool ?? this.#pool;
    if (pool === undefined) {
      let pg: typeof import('pg');
      try {
        pg = (await import('pg')).default as typeof import('pg');
      } catch (cause) {
        throw new SessionStoreError(
          SessionStoreErrorCode.DriverMissing,
          'postgresSessionStore needs the pg package: npm install pg',
          {},
          { cause },
        );
      }
      const created = new pg.Pool({
        connectionString: this.#options.connectionString,
        max: this.#options.maxConnections,
      });
      // An idle connection the server dropped (a restart) must not crash the process; the next query reconnects.
      created.on('error', () => undefined);
      pool = created as unknown as PostgresPoolLike;
      this.#pool = pool;
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await client.query(schemaSql(this.#schema));
      const version = await client.query(
        `SELECT version FROM ${this.#table('acpkit_schema_version')} WHERE component = 'sessions'`,
      );
      const stored = version.rows[0]?.version;
      if (stored === undefined) {
        await client.query(
          `INSERT INTO ${this.#table('acpkit_schema_version')} (component, version) VALUES ('sessions', $1)`,
          [POSTGRES_SCHEMA_VERSION],
        );
      } else if (stored > POSTGRES_SCHEMA_VERSION) {
        throw new SessionStoreError(
          SessionStoreErrorCode.StoreUnavailable,
          `schema "${this.#schema}" holds sessions schema version ${stored}, newer than this @acpkit/sessions (${POSTGRES_SCHEMA_VERSION}); upgrade @acpkit/sessions`,
        );
      }
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    }
    return pool;
  }

  #wrap(error: unknown, sessionId: string | undefined): unknown {
    if (SessionStoreError.isInstance(error)) return error;
    return storeUnavailable('Postgres', error, sessionId);
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
      `session ${sessionId} has a row that cannot be read (schema "${this.#schema}", ${location}); other sessions are unaffected. Restore it from a backup or delete the session`,
      { sessionId, location: `${this.#schema}.${location}` },
      { cause },
    );
  }
}

/**
 * A session store in Postgres, for several servers sharing one history: a session created through one server is
 * listed, loaded and resumed through any other, and two servers writing the same session at once get one write
 * through and the other refused (`STALE_WRITE`). The tables are created on first use (`acpkit_schema_version`,
 * `acpkit_sessions`, `acpkit_session_turns`). Needs the optional peer `pg` (`npm install pg`).
 *
 * @example
 * ```ts
 * import { createAiSdkAgent } from '@acpkit/ai-sdk';
 * import { postgresSessionStore } from '@acpkit/sessions/postgres';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * const sessionStore = postgresSessionStore({ connectionString: process.env.DATABASE_URL as string });
 * export const createAgent = () => createAiSdkAgent({ name: 'helper', version: '1.0.0', model, sessionStore });
 * ```
 */
export function postgresSessionStore(options: PostgresSessionStoreOptions): SessionStore {
  return new PostgresSessionStore(options);
}
