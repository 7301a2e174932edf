// Which SQLite binding opens the database: Node's built-in `node:sqlite` where it exists without a flag (Node ≥ 22.13
// and 24: nothing to install, no native module to rebuild per Node version), else `better-sqlite3` 12 (Node 20: a
// native module, an optional peer). Both are synchronous with the same prepare/run/get/all shape, so the store is
// written once against the small interface below.
import { SessionStoreError, SessionStoreErrorCode } from '../errors.js';

/** A prepared statement, as both bindings have it. */
export interface SqliteStatement {
  run(...parameters: unknown[]): { changes: number | bigint };
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}

/** An open database, as both bindings have it. */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** The bindings a store can use. `auto` picks `node:sqlite` when the running Node has it, else `better-sqlite3`. */
export type SqliteDriver = 'auto' | 'node:sqlite' | 'better-sqlite3';

type DatabaseConstructor = new (path: string) => SqliteDatabase;

async function nodeSqlite(): Promise<DatabaseConstructor | undefined> {
  // A variable specifier: on Node 20 (no such module) the import fails at run time instead of at bundling.
  const specifier = 'node:sqlite';
  try {
    const module = (await import(specifier)) as { DatabaseSync?: DatabaseConstructor };
    return module.DatabaseSync;
  } catch {
    return undefined;
  }
}

async function betterSqlite3(): Promise<DatabaseConstructor | undefined> {
  const specifier = 'better-sqlite3';
  try {
    const module = (await import(specifier)) as { default: DatabaseConstructor };
    return module.default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    // Installed but its native module does not load (built for another Node version): say so, it is fixable.
    throw new SessionStoreError(
      SessionStoreErrorCode.DriverMissing,
      `better-sqlite3 is installed but does not load on Node ${process.versions.node} (${(error as Error).message}); ` +
        'rebuild it for this Node (pnpm rebuild better-sqlite3) or run on Node ≥ 22.13, which has node:sqlite built in',
      {},
      { cause: error },
    );
  }
}

/** The name of the binding `open` will use, and the opener. */
export async function loadSqliteDriver(
  driver: SqliteDriver,
): Promise<{ name: 'node:sqlite' | 'better-sqlite3'; open: (path: string) => SqliteDatabase }> {
  if (driver === 'auto' || driver === 'node:sqlite') {
    const Database = await nodeSqlite();
    if (Database !== undefined) return { name: 'node:sqlite', open: (path) => new Database(path) };
    if (driver === 'node:sqlite') {
      throw new SessionStoreError(
        SessionStoreErrorCode.DriverMissing,
        `node:sqlite is not available on Node ${process.versions.node} (it needs Node ≥ 22.13, or 22.5 with --experimental-sqlite); use driver 'better-sqlite3'`,
      );
    }
  }
  const Database = await betterSqlite3();
  if (Database !== undefined) return { name: 'better-sqlite3', open: (path) => new Database(path) };
  throw new SessionStoreError(
    SessionStoreErrorCode.DriverMissing,
    `no SQLite binding on Node ${process.versions.node}: install better-sqlite3 (npm install better-sqlite3@12), or run on Node ≥ 22.13, which has node:sqlite built in`,
  );
}

/** Whether a binding's error says the file is not a SQLite database or is damaged (not merely unreachable). */
export function isCorruptionError(error: unknown): boolean {
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  // SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), as better-sqlite3 (`code`) and node:sqlite (`errcode`) report them.
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return true;
  if (typeof errcode === 'number' && ((errcode & 0xff) === 11 || (errcode & 0xff) === 26)) return true;
  return (
    typeof message === 'string' && /file is not a database|database disk image is malformed/.test(message)
  );
}
