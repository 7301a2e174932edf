// AcpRemoteOptionError, the INVALID_OPTION error every option check throws: the option's name, what it allows and what
// was given as fields a program branches on, the value described but never echoed.
import { brandErrorClass, describeRejectedValue } from '@acpkit/errors';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { redactUrls } from '../shared/logger.js';

/** How a rejected value is shown in an error message: JSON, shortened, URL secrets redacted. */
export function describeOptionValue(value: unknown): string {
  return describeRejectedValue(value, { rewrite: redactUrls });
}

/**
 * An option of `@acpkit/remote` has an invalid value: an `AcpRemoteError` with code `INVALID_OPTION` whose fields say
 * which option ({@link AcpRemoteOptionError.option}, as you pass it: `bearerToken`, `port`, `headers`, `env`), what
 * it allows and how the given value looked (never the value of a secret). Branch on `option`, not on the message.
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
export class AcpRemoteOptionError extends AcpRemoteError<typeof AcpRemoteErrorCode.InvalidOption> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of this package.
   *
   * @example
   * ```ts
   * AcpRemoteOptionError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(AcpRemoteOptionError, 'acpkit.error.remote-option');
  override readonly name: string = 'AcpRemoteOptionError';
  /** The option as it is spelled in the options object (`bearerToken`, `headers`, `env`, `url`, …). */
  readonly option: string;
  /** What the option allows, in words (`a positive integer`, …). */
  readonly expected: string;
  /** How the rejected value looked: JSON, shortened, secrets replaced by a description (`a blank string`). */
  readonly received: string;

  constructor(
    option: string,
    expected: string,
    received: string,
    options: { label?: string; cause?: unknown } = {},
  ) {
    super(
      AcpRemoteErrorCode.InvalidOption,
      `${options.label ?? option} must be ${expected}, got ${received}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.option = option;
    this.expected = expected;
    this.received = received;
  }
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
