// The option checks every ACP Kit package shares: each returns the checked value (or its default) or throws one
// OptionError naming the option, what it allows and how the given value looked.
import { describeRejectedValue } from './describe-value.js';
import { OptionError, type OptionErrorOptions } from './option-error.js';

/**
 * The {@link OptionError} for `value`, described with `describeRejectedValue`: what every check below throws, and
 * what a package's own checks throw for the rules only it knows.
 *
 * @example
 * ```ts
 * import { invalidOption } from '@acpkit/errors';
 *
 * throw invalidOption('mode', 'one of "ask" or "code"', 'plan'); // mode must be one of "ask" or "code", got "plan"
 * ```
 */
export function invalidOption(
  option: string,
  expected: string,
  value: unknown,
  options: OptionErrorOptions = {},
): OptionError {
  return new OptionError(option, expected, describeRejectedValue(value), options);
}

/**
 * Whether `value` is a plain object (not `null`, not an array): what an options object must be.
 *
 * @example
 * ```ts
 * import { isPlainObject } from '@acpkit/errors';
 *
 * isPlainObject({ image: true }); // true
 * isPlainObject([1]); // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A string that is not blank (a name, a version).
 *
 * @throws {@link OptionError} otherwise.
 * @example
 * ```ts
 * import { requiredString } from '@acpkit/errors';
 *
 * const name = requiredString('name', 'release-helper');
 * ```
 */
export function requiredString(option: string, value: unknown, options: OptionErrorOptions = {}): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidOption(option, 'a non-empty string', value, options);
  return value;
}

/**
 * A string, or `undefined` when left out.
 *
 * @throws {@link OptionError} for anything else.
 * @example
 * ```ts
 * import { optionalString } from '@acpkit/errors';
 *
 * const title = optionalString('title', undefined); // undefined
 * ```
 */
export function optionalString(
  option: string,
  value: unknown,
  options: OptionErrorOptions = {},
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidOption(option, 'a string', value, options);
  return value;
}

/**
 * A positive safe integer, or `fallback` when left out.
 *
 * @throws {@link OptionError} for anything else (`0`, `1.5`, `"20"`).
 * @example
 * ```ts
 * import { positiveInteger } from '@acpkit/errors';
 *
 * const maxSteps = positiveInteger('maxSteps', undefined, 20); // 20
 * ```
 */
export function positiveInteger(
  option: string,
  value: unknown,
  fallback: number,
  options: OptionErrorOptions = {},
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(option, 'a positive integer', value, options);
  }
  return value;
}

/**
 * `true` or `false`, `false` when left out.
 *
 * @throws {@link OptionError} for anything else.
 * @example
 * ```ts
 * import { optionalBoolean } from '@acpkit/errors';
 *
 * const image = optionalBoolean('modelInputs', undefined, { label: 'modelInputs.image' }); // false
 * ```
 */
export function optionalBoolean(option: string, value: unknown, options: OptionErrorOptions = {}): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidOption(option, 'true or false', value, options);
  return value;
}

/**
 * A function (a hook), or `undefined` when left out.
 *
 * @throws {@link OptionError} for anything else.
 * @example
 * ```ts
 * import { optionalFunction } from '@acpkit/errors';
 *
 * const describe = optionalFunction<(name: string) => string>('describe', (name: string) => name);
 * ```
 */
export function optionalFunction<Hook>(
  option: string,
  value: unknown,
  options: OptionErrorOptions = {},
): Hook | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw invalidOption(option, 'a function', value, options);
  return value as Hook;
}
