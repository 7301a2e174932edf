// AcpRemoteOptionError, the INVALID_OPTION error every option check throws: @acpkit/errors' OptionError (the option's
// name, what it allows and what was given as fields) in the AcpRemoteError family, the value described, never echoed.
import { brandErrorClass, describeRejectedValue, OptionError } from '@acpkit/errors';
import { AcpRemoteError } from '../shared/errors.js';
import { redactUrls } from '../shared/logger.js';

/** How a rejected value is shown in an error message: JSON, shortened, URL secrets redacted. */
export function describeOptionValue(value: unknown): string {
  return describeRejectedValue(value, { rewrite: redactUrls });
}

/**
 * An option of `@acpkit/remote` has an invalid value: the `OptionError` of `@acpkit/errors` (code `INVALID_OPTION`,
 * like every package's) that is also an `AcpRemoteError`, whose fields say which option
 * ({@link AcpRemoteOptionError.option}, as you pass it: `bearerToken`, `port`, `headers`, `env`), what it allows and
 * how the given value looked (never the value of a secret). Branch on `option`, not on the message.
 *
 * @example
 * ```ts
 * import { AcpRemoteOptionError, serveCommand } from '@acpkit/remote';
 *
 * try {
 *   await serveCommand(['node', 'agent.js'], { port: 70_000 });
 * } catch (error) {
 *   if (AcpRemoteOptionError.isInstance(error) && error.option === 'port') console.error('pick a port up to 65535');
 * }
 * ```
 */
export class AcpRemoteOptionError extends OptionError {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * AcpRemoteOptionError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(AcpRemoteOptionError, 'acpkit.error.remote-option', {
    // Every error @acpkit/remote throws is an AcpRemoteError: `AcpRemoteError.isInstance` stays true for this one.
    families: [AcpRemoteError],
  });
  override readonly name: string = 'AcpRemoteOptionError';
}

/**
 * The one error every option check throws. `shown` replaces the described value for secrets (never echoed); `label`
 * names an entry inside the option in the message (`headers["X-Key"]`, `env.PATH`) while `option` stays the name of
 * the option itself.
 */
export function invalidOption(
  option: string,
  allowed: string,
  value: unknown,
  options: { shown?: string; cause?: unknown; label?: string } = {},
): AcpRemoteOptionError {
  return new AcpRemoteOptionError(option, allowed, options.shown ?? describeOptionValue(value), {
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}
