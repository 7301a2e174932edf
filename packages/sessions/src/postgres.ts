/**
 * `@acpkit/sessions/postgres`: the Postgres session store, for several servers sharing sessions. Needs the optional
 * peer `pg`. Named exports only.
 */
export {
  POSTGRES_SCHEMA_VERSION,
  type PostgresClientLike,
  type PostgresPoolLike,
  type PostgresSessionStoreOptions,
  postgresSessionStore,
} from './stores/postgres-store.js';
