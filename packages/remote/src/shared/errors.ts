// AcpRemoteError, the family of errors `@acpkit/remote` throws, on the one ACP Kit error root (`@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';
import type { ResumeFailureReason } from './durable-resume.js';

/**
 * Stable codes of {@link AcpRemoteError}. Adding a code is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * if (AcpRemoteError.isInstance(error) && error.code === AcpRemoteErrorCode.InvalidOption) process.exitCode = 2;
 * ```
 */
export const AcpRemoteErrorCode = {
  /** An option has an invalid value (blank token, empty command, bad mount path, bad URL, ...). */
  InvalidOption: 'INVALID_OPTION',
  /** A non-loopback host was requested without a bearer token and without `allowUnauthenticated`. */
  UnauthenticatedPublicBind: 'UNAUTHENTICATED_PUBLIC_BIND',
  /** The HTTP server could not listen (port in use, permission denied, ...). */
  ListenFailed: 'LISTEN_FAILED',
  /** The connection to a remote endpoint (WebSocket or Streamable HTTP) could not be opened. */
  ConnectionFailed: 'CONNECTION_FAILED',
  /** The remote endpoint refused the credentials (HTTP 401 or 403 at upgrade). */
  AuthenticationFailed: 'AUTHENTICATION_FAILED',
  /** The connection ended before the operation could complete (a write after the close, a response cut off). */
  ConnectionClosed: 'CONNECTION_CLOSED',
  /** A broken invariant inside `@acpkit/remote`: a bug, never the peer's fault. Please report it with the message. */
  InternalError: 'INTERNAL_ERROR',
  /**
   * A dropped connection could not be resumed at the transport level: the server refused the resume (an
   * `acpkit.resume.v1` refusal, a `409` to `Last-Event-ID`, `stream/resume_failed`), advertises none, or is
   * unreachable within its window. The error is a {@link ResumeRefusedError}: its `reason` says which. The client's
   * next step is a new connection and `session/resume` (or `session/load`) of the sessions it had open.
   */
  ResumeRefused: 'RESUME_REFUSED',
} as const;

/** Union of the string values of {@link AcpRemoteErrorCode}. */
export type AcpRemoteErrorCode = (typeof AcpRemoteErrorCode)[keyof typeof AcpRemoteErrorCode];

/**
 * Base class of every error thrown by `@acpkit/remote`: an `AcpKitError` (the root of every ACP Kit error, from
 * `@acpkit/errors`) with a stable `code` from {@link AcpRemoteErrorCode} (branch on it, not on the message), `cause`
 * kept when one error wraps another, and the `Symbol.for('acpkit.error.remote')` marker behind `isInstance()` and
 * `instanceof`, which both recognise errors from another copy of the package. Wire errors stay the SDK's
 * `RequestError`.
 *
 * @example
 * ```ts
 * try {
 *   await serveCommand(['node', 'agent.js'], { host: '0.0.0.0' });
 * } catch (error) {
 *   if (AcpRemoteError.isInstance(error)) console.error(error.code, error.message);
 * }
 * ```
 */
export class AcpRemoteError<Code extends AcpRemoteErrorCode = AcpRemoteErrorCode> extends AcpKitError<Code> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * AcpRemoteError.isInstance(new AcpRemoteError('INVALID_OPTION', 'bad')); // true
   * ```
   */
  static override readonly isInstance = brandErrorClass(AcpRemoteError, 'acpkit.error.remote');
  override readonly name: string = 'AcpRemoteError';
}

/**
 * The transport resume of a dropped connection failed ({@link AcpRemoteErrorCode.ResumeRefused}): what the client's
 * `onConnectionEvent` gets as `error` on its `resume-failed` event, whatever the wire (`acpkit.resume.v1` on
 * `<mount>/ws`, or the durable-resume draft on Streamable HTTP). The sessions are not lost with the connection:
 * open a new one and resume them (`session/resume`, or `session/load`).
 *
 * @example
 * ```ts
 * onConnectionEvent: (event) => {
 *   if (event.type === 'resume-failed' && event.error.code === 'RESUME_REFUSED') reopenSessions(event.error.reason);
 * }
 * ```
 */
export class ResumeRefusedError extends AcpRemoteError<typeof AcpRemoteErrorCode.ResumeRefused> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * ResumeRefusedError.isInstance(new ResumeRefusedError('expired', 'gone', 'durable-resume')); // true
   * ```
   */
  static override readonly isInstance = brandErrorClass(
    ResumeRefusedError,
    'acpkit.error.remote-resume-refused',
  );
  override readonly name: string = 'ResumeRefusedError';

  constructor(
    /** Why: the server's refusal reason, or what the client found (`unreachable`, `unsupported`, `auth`, ...). */
    readonly reason: ResumeFailureReason,
    message: string,
    /** Which resume failed: `acpkit.resume.v1` (the WebSocket at `<mount>/ws`) or the durable-resume draft. */
    readonly wire: 'acpkit.resume.v1' | 'durable-resume',
    options?: { cause?: unknown },
  ) {
    super(AcpRemoteErrorCode.ResumeRefused, message, options);
  }
}
