// OptionError, the one error every ACP Kit package throws for a bad option: which option, what it allows and how the
// given value looked, as fields a program branches on (never the message).
import { AcpKitError, brandErrorClass } from './acp-kit-error.js';

/**
 * The code of {@link OptionError}: `INVALID_OPTION`, the same in every package.
 *
 * @example
 * ```ts
 * import { OptionErrorCode } from '@acpkit/errors';
 *
 * OptionErrorCode.InvalidOption; // 'INVALID_OPTION'
 * ```
 */
export const OptionErrorCode = {
  /** An option is missing, of the wrong type or out of range. */
  InvalidOption: 'INVALID_OPTION',
} as const;
/** One of the {@link OptionErrorCode} values. */
export type OptionErrorCode = (typeof OptionErrorCode)[keyof typeof OptionErrorCode];

/** Options of the {@link OptionError} constructor. */
export interface OptionErrorOptions {
  /**
   * How the message names the option when it needs context (`tools.search`, `headers["X-Key"]`); `option` stays the
   * option's own name.
   */
  readonly label?: string | undefined;
  /** The error this one wraps. */
  readonly cause?: unknown;
}

/**
 * An option is missing, of the wrong type or out of range (code `INVALID_OPTION`), thrown by the call that got it
 * before anything runs, by every ACP Kit package (`@acpkit/ai-sdk`, `@acpkit/langchain`, `@acpkit/testing`,
 * `@acpkit/remote`, whose `AcpRemoteOptionError` is one too). `option` is the option as you spell it (`maxSteps`,
 * `port`, `bearerToken`), `expected` what it allows in words, `received` how the given value looked (JSON, shortened,
 * never a secret). Branch on `option`, not on the message.
 *
 * @example
 * ```ts
 * import { OptionError } from '@acpkit/errors';
 *
 * function explain(error: unknown): string | undefined {
 *   if (OptionError.isInstance(error)) return `fix ${error.option}: it must be ${error.expected}`;
 *   return undefined;
 * }
 * ```
 */
export class OptionError extends AcpKitError<OptionErrorCode> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { OptionError } from '@acpkit/errors';
   *
   * OptionError.isInstance(new OptionError('port', 'a port number', '-1')); // true
   * ```
   */
  static override readonly isInstance = brandErrorClass(OptionError, 'acpkit.error.option');
  override readonly name: string = 'OptionError';
  /** The option as it is spelled in the options object (`maxSteps`, `port`, `tools`, …). */
  readonly option: string;
  /** What the option allows, in words (`a positive integer`, …). */
  readonly expected: string;
  /** How the rejected value looked: JSON, shortened, secrets replaced by a description. */
  readonly received: string;

  /**
   * @param option The option's name as the caller spells it.
   * @param expected What it allows, in words: the message reads `<option> must be <expected>, got <received>`.
   * @param received How the rejected value looked (see `describeRejectedValue`).
   */
  constructor(option: string, expected: string, received: string, options: OptionErrorOptions = {}) {
    super(
      OptionErrorCode.InvalidOption,
      `${options.label ?? option} must be ${expected}, got ${received}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.option = option;
    this.expected = expected;
    this.received = received;
  }
}
