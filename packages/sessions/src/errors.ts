// The one error class of @acpkit/sessions: SessionStoreError on the ACP Kit root, with a stable code per way a store
// refuses or fails (stale write, session too large, corrupt record, store down, …) and the fields a program branches on.
import { AcpKitError, brandErrorClass, describeRejectedValue, OptionError } from '@acpkit/errors';

/**
 * Stable codes of {@link SessionStoreError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * import { SessionStoreErrorCode } from '@acpkit/sessions';
 *
 * SessionStoreErrorCode.StaleWrite; // 'STALE_WRITE'
 * ```
 */
export const SessionStoreErrorCode = {
  /** An option of a store is missing or out of range. */
  InvalidOption: 'INVALID_OPTION',
  /** A session id that is empty, too long or not a string (ids are untrusted input). */
  InvalidSessionId: 'INVALID_SESSION_ID',
  /** A save whose fields are malformed (no cwd, a negative version, entries that are not an array, …). */
  InvalidWrite: 'INVALID_WRITE',
  /** A `list` cursor this store did not hand out. */
  InvalidCursor: 'INVALID_CURSOR',
  /** Another writer saved the session since this writer read it: the write was refused, nothing merged. */
  StaleWrite: 'STALE_WRITE',
  /** A save for a session that is not (or no longer) stored. */
  SessionNotFound: 'SESSION_NOT_FOUND',
  /** The save would take the session past the store's `maxSessionBytes`: refused, the stored session is unchanged. */
  SessionTooLarge: 'SESSION_TOO_LARGE',
  /** A stored record that cannot be read back (a damaged file, a row written by something else). */
  CorruptRecord: 'CORRUPT_RECORD',
  /** The store cannot be reached (a database down, a directory not writable). */
  StoreUnavailable: 'STORE_UNAVAILABLE',
  /** The store's driver package is not installed (`pg`, `better-sqlite3`). */
  DriverMissing: 'DRIVER_MISSING',
  /** The store was closed. */
  StoreClosed: 'STORE_CLOSED',
} as const;
/** One of the {@link SessionStoreErrorCode} values. */
export type SessionStoreErrorCode = (typeof SessionStoreErrorCode)[keyof typeof SessionStoreErrorCode];

/** Fields a {@link SessionStoreError} may carry, by code. */
export interface SessionStoreErrorDetails {
  /** `INVALID_OPTION`: the option as the caller spells it (`maxSessionBytes`, `limit`, …). */
  readonly option?: string | undefined;
  readonly sessionId?: string | undefined;
  /** `STALE_WRITE`: the version the writer expected and the one stored. */
  readonly expectedVersion?: number | undefined;
  readonly actualVersion?: number | undefined;
  /** `SESSION_TOO_LARGE`: the size the save would reach and the bound. */
  readonly bytes?: number | undefined;
  readonly maxSessionBytes?: number | undefined;
  /** `CORRUPT_RECORD`: where the damage is (a file and line, a table). */
  readonly location?: string | undefined;
}

/**
 * What every session store throws: a stable `code`, a message that says what to do next, and the fields of
 * {@link SessionStoreErrorDetails}. The session handlers turn it into a JSON-RPC error whose `data` carries the same
 * `code`.
 *
 * @example
 * ```ts
 * import { SessionStoreError, memorySessionStore } from '@acpkit/sessions';
 *
 * const store = memorySessionStore();
 * try {
 *   await store.save({ sessionId: 's1', expectedVersion: 3, cwd: '/work', append: [] });
 * } catch (error) {
 *   if (SessionStoreError.isInstance(error)) console.error(error.code); // SESSION_NOT_FOUND
 * }
 * ```
 */
export class SessionStoreError extends AcpKitError<SessionStoreErrorCode> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { SessionStoreError } from '@acpkit/sessions';
   *
   * SessionStoreError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(SessionStoreError, 'acpkit.error.session-store');
  override readonly name: string = 'SessionStoreError';
  readonly details: SessionStoreErrorDetails;

  constructor(
    code: SessionStoreErrorCode,
    message: string,
    details: SessionStoreErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.details = details;
  }
}

/**
 * What a store's option check throws: an `OptionError` of `@acpkit/errors` (the fields `option`, `expected`,
 * `received`) that is also a {@link SessionStoreError} (`SessionStoreError.isInstance` is true, code
 * `INVALID_OPTION`, `details.option` names the option), so one catch handles every store refusal.
 *
 * @example
 * ```ts
 * import { memorySessionStore, SessionStoreOptionError } from '@acpkit/sessions';
 *
 * try {
 *   await memorySessionStore().list({ limit: 0 });
 * } catch (error) {
 *   if (SessionStoreOptionError.isInstance(error)) console.error(error.option); // limit
 * }
 * ```
 */
export class SessionStoreOptionError extends OptionError {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { SessionStoreOptionError } from '@acpkit/sessions';
   *
   * SessionStoreOptionError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(
    SessionStoreOptionError,
    'acpkit.error.session-store-option',
    // Every error a store throws is a SessionStoreError: `SessionStoreError.isInstance` stays true for this one.
    { families: [SessionStoreError] },
  );
  override readonly name: string = 'SessionStoreOptionError';
  /** The same shape as every {@link SessionStoreError}'s: the option's name. */
  readonly details: SessionStoreErrorDetails = { option: this.option };
}

/** The one error every option check throws. */
export function invalidOption(option: string, allowed: string, value: unknown): SessionStoreOptionError {
  return new SessionStoreOptionError(option, allowed, describeRejectedValue(value));
}

/** Wraps a driver's or the file system's failure to reach the store. */
export function storeUnavailable(store: string, cause: unknown, sessionId?: string): SessionStoreError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SessionStoreError(
    SessionStoreErrorCode.StoreUnavailable,
    `the ${store} session store cannot be reached (${reason}); nothing was written. Check that it is up and retry.`,
    { sessionId },
    { cause },
  );
}
