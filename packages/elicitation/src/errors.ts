// The errors `@acpkit/elicitation` throws itself, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Stable codes of the errors `@acpkit/elicitation` throws itself (validation and response codes come from
 * `@acpkit/choice-schema`).
 *
 * @example
 * ```ts
 * import { ElicitationErrorCode } from '@acpkit/elicitation';
 *
 * ElicitationErrorCode.ElicitationUnsupported; // 'ELICITATION_UNSUPPORTED'
 * ```
 */
export const ElicitationErrorCode = {
  /** The client did not advertise the mode, or answered `-32601`. */
  ElicitationUnsupported: 'ELICITATION_UNSUPPORTED',
  /** A fallback accepted a value that none of the choices offered. */
  FallbackValueNotOffered: 'FALLBACK_VALUE_NOT_OFFERED',
  /** A fallback returned something other than a result variant (for example a 1.6.0-style plain value). */
  FallbackNotAResult: 'FALLBACK_NOT_A_RESULT',
  /** A session-scoped mode names another session. */
  SessionMismatch: 'SESSION_MISMATCH',
  /** The ACP connection closed before the client answered. */
  ConnectionClosed: 'CONNECTION_CLOSED',
  /** No `initialize` capabilities were recorded for the session (the agent did not wrap its initialize handler). */
  ClientCapabilitiesNotRecorded: 'CLIENT_CAPABILITIES_NOT_RECORDED',
} as const;
/** One of the {@link ElicitationErrorCode} values. */
export type ElicitationErrorCode = (typeof ElicitationErrorCode)[keyof typeof ElicitationErrorCode];

/**
 * The codes an {@link ElicitationUnsupportedError} carries: `ELICITATION_UNSUPPORTED` itself, and
 * `CLIENT_CAPABILITIES_NOT_RECORDED` from its subclass {@link ClientCapabilitiesNotRecordedError}.
 *
 * @example
 * ```ts
 * import type { ElicitationUnsupportedErrorCode } from '@acpkit/elicitation';
 *
 * const code: ElicitationUnsupportedErrorCode = 'ELICITATION_UNSUPPORTED';
 * ```
 */
export type ElicitationUnsupportedErrorCode =
  | typeof ElicitationErrorCode.ElicitationUnsupported
  | typeof ElicitationErrorCode.ClientCapabilitiesNotRecorded;

/**
 * The elicitation mode cannot be used with the connected client: it did not advertise it in `initialize`
 * (`clientCapabilities.elicitation.<mode>` absent or `null`), or it answered `-32601` (then `cause` is that
 * `RequestError`), or — as the subclass {@link ClientCapabilitiesNotRecordedError} — no capabilities were recorded
 * at all. Nothing was sent in the first and last cases. Catch this class when the client cannot show forms; branch
 * on `code` to tell the cases apart.
 *
 * @example
 * ```ts
 * import { ElicitationUnsupportedError, type AcpSessionContext } from '@acpkit/elicitation';
 *
 * async function ask(session: AcpSessionContext): Promise<string> {
 *   try {
 *     const result = await session.askChoice('Pick one', [{ value: 'a', label: 'A' }]);
 *     return result.status;
 *   } catch (error) {
 *     if (ElicitationUnsupportedError.isInstance(error)) return 'unsupported';
 *     throw error;
 *   }
 * }
 * ```
 */
export class ElicitationUnsupportedError extends AcpKitError<ElicitationUnsupportedErrorCode> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    ElicitationUnsupportedError,
    'acpkit.error.elicitation-unsupported',
  );
  override readonly name: string = 'ElicitationUnsupportedError';
  /** The mode that cannot be used: `form`, `url` or a custom mode string. */
  readonly mode: string;

  /**
   * @param mode The elicitation mode asked for.
   * @param options `cause`: the client's `-32601` answer, when that is how it said so. `code` and `message` are for
   * subclasses, which say why otherwise.
   */
  constructor(
    mode: string,
    options?: { cause?: unknown; code?: ElicitationUnsupportedErrorCode; message?: string },
  ) {
    const described = mode === 'form' || mode === 'url' ? mode : `'${mode.slice(0, 100)}'`;
    super(
      options?.code ?? ElicitationErrorCode.ElicitationUnsupported,
      options?.message ?? `The connected ACP client does not support ${described} elicitation.`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.mode = mode;
  }
}

/**
 * A fallback's answer cannot be used: it accepted a value no choice offered (`FALLBACK_VALUE_NOT_OFFERED`), or it
 * returned something that is not a `ElicitationResult` variant (`FALLBACK_NOT_A_RESULT`; wrap 1.6.0-style
 * fallbacks with `legacyFallback` from `@acpkit/compat-1.6`). The offending value is kept in `value`.
 *
 * @example
 * ```ts
 * import { InvalidElicitationFallbackError } from '@acpkit/elicitation';
 *
 * function describe(error: unknown): string {
 *   return InvalidElicitationFallbackError.isInstance(error) ? error.code : 'other';
 * }
 * ```
 */
export class InvalidElicitationFallbackError extends AcpKitError<
  typeof ElicitationErrorCode.FallbackValueNotOffered | typeof ElicitationErrorCode.FallbackNotAResult
> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    InvalidElicitationFallbackError,
    'acpkit.error.invalid-elicitation-fallback',
  );
  override readonly name: string = 'InvalidElicitationFallbackError';
  /** What the fallback returned (the accepted value, or the plain value). */
  readonly value: unknown;

  constructor(
    code:
      | typeof ElicitationErrorCode.FallbackValueNotOffered
      | typeof ElicitationErrorCode.FallbackNotAResult,
    message: string,
    value: unknown,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.value = value;
  }
}

/**
 * `createElicitation` was given a session-scoped mode whose `sessionId` is not this session's; nothing was sent.
 *
 * @example
 * ```ts
 * import { ElicitationScopeError } from '@acpkit/elicitation';
 *
 * ElicitationScopeError.isInstance(new Error('x')); // false
 * ```
 */
export class ElicitationScopeError extends AcpKitError<typeof ElicitationErrorCode.SessionMismatch> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    ElicitationScopeError,
    'acpkit.error.elicitation-scope',
  );
  override readonly name: string = 'ElicitationScopeError';

  constructor(requestedSessionId: string, sessionId: string) {
    super(
      ElicitationErrorCode.SessionMismatch,
      `The elicitation is scoped to session ${JSON.stringify(requestedSessionId.slice(0, 100))}, not to this session ${JSON.stringify(sessionId.slice(0, 100))}.`,
    );
  }
}

/**
 * The ACP connection closed (or failed) while an elicitation was pending or about to be sent. `cause` is the
 * SDK's close reason.
 *
 * @example
 * ```ts
 * import { ElicitationConnectionClosedError } from '@acpkit/elicitation';
 *
 * ElicitationConnectionClosedError.isInstance(new Error('x')); // false
 * ```
 */
export class ElicitationConnectionClosedError extends AcpKitError<
  typeof ElicitationErrorCode.ConnectionClosed
> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    ElicitationConnectionClosedError,
    'acpkit.error.elicitation-connection-closed',
  );
  override readonly name: string = 'ElicitationConnectionClosedError';

  constructor(options?: { cause?: unknown }) {
    super(
      ElicitationErrorCode.ConnectionClosed,
      'The ACP connection closed before the client answered the elicitation.',
      options,
    );
  }
}

/**
 * No client capabilities were recorded for the session, so ACP Kit cannot tell whether the client supports the
 * elicitation mode: the agent did not wrap its `initialize` handler with `sessions.initialize(...)` from
 * `acpSessions()` (or built an `AcpSessionContext` without `clientCapabilities`). A programmer error; nothing was
 * sent and no fallback ran. It is an {@link ElicitationUnsupportedError} (the client's support is unknown, so the
 * form cannot be shown), so code that catches that class catches this one too; its `code` tells them apart.
 *
 * @example
 * ```ts
 * import { ClientCapabilitiesNotRecordedError, ElicitationUnsupportedError } from '@acpkit/elicitation';
 *
 * const error = new ClientCapabilitiesNotRecordedError('form');
 * ElicitationUnsupportedError.isInstance(error); // true
 * error.code; // 'CLIENT_CAPABILITIES_NOT_RECORDED'
 * ```
 */
export class ClientCapabilitiesNotRecordedError extends ElicitationUnsupportedError {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    ClientCapabilitiesNotRecordedError,
    'acpkit.error.client-capabilities-not-recorded',
  );
  override readonly name: string = 'ClientCapabilitiesNotRecordedError';
  declare readonly code: typeof ElicitationErrorCode.ClientCapabilitiesNotRecorded;

  /** @param mode The elicitation mode asked for. */
  constructor(mode: string) {
    super(mode, {
      code: ElicitationErrorCode.ClientCapabilitiesNotRecorded,
      message:
        'No client capabilities were recorded for this session, so ACP Kit cannot tell whether the client supports ' +
        "elicitation. Wrap the agent's initialize handler with sessions.initialize(...) from acpSessions() (it " +
        'records params.clientCapabilities per connection), or pass clientCapabilities to new AcpSessionContext(...).',
    });
  }
}
