// WebClientError, the family of errors `@acpkit/web-client` throws, on the one ACP Kit error root (`@acpkit/errors`).
import { AcpKitError, brandErrorClass, OptionError } from '@acpkit/errors';

/**
 * Stable codes of {@link WebClientError}. Adding a code is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * if (WebClientError.isInstance(error) && error.code === WebClientErrorCode.UnauthenticatedPublicBind) process.exitCode = 2;
 * ```
 */
export const WebClientErrorCode = {
  /** An option has an invalid value (empty command, a token with spaces, a bad port). */
  InvalidOption: 'INVALID_OPTION',
  /** A non-loopback host was asked for without a bearer token: another device could use the agent. */
  UnauthenticatedPublicBind: 'UNAUTHENTICATED_PUBLIC_BIND',
  /** The HTTP server could not listen (port in use, permission denied). */
  ListenFailed: 'LISTEN_FAILED',
  /** The page's built assets are missing from the package (a broken install or an unbuilt checkout). */
  AssetsMissing: 'ASSETS_MISSING',
} as const;

/** Union of the string values of {@link WebClientErrorCode}. */
export type WebClientErrorCode = (typeof WebClientErrorCode)[keyof typeof WebClientErrorCode];

/**
 * Base class of every error thrown by `@acpkit/web-client`, with a stable `code` from {@link WebClientErrorCode}.
 *
 * @example
 * ```ts
 * try {
 *   await serveWebClient({ command: ['node', 'agent.js'], host: '0.0.0.0' });
 * } catch (error) {
 *   if (WebClientError.isInstance(error)) console.error(error.code, error.message);
 * }
 * ```
 */
export class WebClientError<Code extends WebClientErrorCode = WebClientErrorCode> extends AcpKitError<Code> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * WebClientError.isInstance(new WebClientError('INVALID_OPTION', 'bad')); // true
   * ```
   */
  static override readonly isInstance = brandErrorClass(WebClientError, 'acpkit.error.web-client');
  override readonly name: string = 'WebClientError';
}

/**
 * An option `serveWebClient` refuses: an `OptionError` of `@acpkit/errors` (fields `option`, `expected`,
 * `received`) that is also a {@link WebClientError} with code `INVALID_OPTION`.
 *
 * @example
 * ```ts
 * try {
 *   await serveWebClient({ command: [] });
 * } catch (error) {
 *   if (WebClientOptionError.isInstance(error)) console.error(error.option); // command
 * }
 * ```
 */
export class WebClientOptionError extends OptionError {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * WebClientOptionError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(
    WebClientOptionError,
    'acpkit.error.web-client-option',
    {
      // Every error @acpkit/web-client throws is a WebClientError: `WebClientError.isInstance` stays true for this one.
      families: [WebClientError],
    },
  );
  override readonly name: string = 'WebClientOptionError';
}
