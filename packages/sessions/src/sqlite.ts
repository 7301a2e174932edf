/**
 * `@acpkit/sessions/sqlite`: the SQLite session store. Its binding is `node:sqlite` (built into Node ≥ 22.13) or
 * the optional peer `better-sqlite3` (Node 20). Named exports only.
 */
export type { SqliteDriver } from './stores/sqlite-driver.js';
export {
  SQLITE_SCHEMA_VERSION,
  type SqliteSessionStoreOptions,
  sqliteSessionStore,
} from './stores/sqlite-store.js';
