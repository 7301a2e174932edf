/**
 * Public surface of @acpkit/sessions: the session store contract, the memory and file stores, and the ACP session
 * handlers. The SQLite and Postgres stores are at `@acpkit/sessions/sqlite` and `@acpkit/sessions/postgres` (their
 * drivers are optional peers); the contract tests at `@acpkit/sessions/testing`. Named exports only.
 */

export { DEFAULT_MAX_OPEN_SESSIONS, type OpenSession, OpenSessions } from './acp/open-sessions.js';
export {
  type ListContextLike,
  SessionLifecycle,
  type SessionRequestLike,
  sessionInfoOf,
  sessionLifecycle,
} from './acp/session-lifecycle.js';
export { defaultSessionTitle, MAX_DEFAULT_TITLE_LENGTH } from './acp/titles.js';
export { sessionStoreRequestError } from './acp/wire-errors.js';
export {
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_SESSION_BYTES,
  type ListSessionsQuery,
  MAX_LIST_LIMIT,
  MAX_SESSION_ID_LENGTH,
  type SessionPage,
  type SessionSave,
  type SessionSaved,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from './contract.js';
export {
  SessionStoreError,
  SessionStoreErrorCode,
  type SessionStoreErrorDetails,
  SessionStoreOptionError,
} from './errors.js';
export { type FileSessionStoreOptions, fileSessionStore } from './stores/file-store.js';
export {
  DEFAULT_MAX_MEMORY_BYTES,
  DEFAULT_MAX_MEMORY_SESSIONS,
  type MemorySessionStoreOptions,
  memorySessionStore,
} from './stores/memory-store.js';
