const REMOTE_ERROR_MARKER = Symbol.for('acpkit.remote.error');

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
  /** The WebSocket connection to a remote endpoint could not be opened. */
  ConnectionFailed: 'CONNECTION_FAILED',
  /** The remote endpoint refused the credentials (HTTP 401 or 403 at upgrade). */
  AuthenticationFailed: 'AUTHENTICATION_FAILED',
} as const;

/** Union of the string values of {@link AcpRemoteErrorCode}. */
export type AcpRemoteErrorCode = (typeof AcpRemoteErrorCode)[keyof typeof AcpRemoteErrorCode];

/**
 * Base class of every error thrown by `@acpkit/remote`. Wire errors stay the SDK's `RequestError`.
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
export class AcpRemoteError extends Error {
  override readonly name: string = 'AcpRemoteError';
  /** Stable machine-readable code. */
  readonly code: AcpRemoteErrorCode;

  constructor(code: AcpRemoteErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Non-enumerable marker so the brand stays out of logs and JSON, and works across package copies.
    Object.defineProperty(this, REMOTE_ERROR_MARKER, { value: true });
  }

  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * AcpRemoteError.isInstance(new AcpRemoteError('INVALID_OPTION', 'bad')); // true
   * ```
   */
  static isInstance(value: unknown): value is AcpRemoteError {
    return typeof value === 'object' && value !== null && REMOTE_ERROR_MARKER in value;
  }
}
