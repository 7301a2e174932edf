// AcpKitError, the root of every error an ACP Kit package throws, and brandErrorClass, the one line a subclass adds.
import { type AcpKitErrorMarker, brand, isBrandedInstance } from './class-markers.js';

/**
 * The root of every error thrown by an ACP Kit package (`@acpkit/choice-schema`, `@acpkit/form-schema`,
 * `@acpkit/elicitation`, `@acpkit/remote`, `@acpkit/testing`, the CLIs), as vercel/ai's `AISDKError` is for its
 * packages. `code` is a stable SCREAMING_SNAKE string: branch on it, not on the message. `cause` is kept when one
 * error wraps another. Each class carries a `Symbol.for` marker on its prototype (`acpkit.error` for this one), so
 * its static `isInstance()` and `instanceof` also recognise errors created by another copy of the package.
 * Errors on the wire stay the ACP SDK's `RequestError`.
 *
 * @typeParam Code The codes this class throws (a subclass narrows it to its own `as const` codes).
 * @example
 * ```ts
 * import { AcpKitError } from '@acpkit/errors';
 *
 * function describeFailure(error: unknown): string {
 *   return AcpKitError.isInstance(error) ? `${error.name} ${error.code}: ${error.message}` : String(error);
 * }
 * ```
 */
export class AcpKitError<Code extends string = string> extends Error {
  /**
   * Like `instanceof AcpKitError`, but also true for errors created by another copy of the package; it needs no
   * `this`, so `errors.filter(AcpKitError.isInstance)` works. Every subclass declares its own (see
   * {@link brandErrorClass}).
   *
   * @example
   * ```ts
   * import { AcpKitError } from '@acpkit/errors';
   *
   * AcpKitError.isInstance(new AcpKitError('SOME_CODE', 'failed')); // true
   * AcpKitError.isInstance(new Error('failed')); // false
   * ```
   */
  static readonly isInstance: (value: unknown) => value is AcpKitError = brand(AcpKitError, 'acpkit.error');

  override readonly name: string = 'AcpKitError';
  /** Stable machine-readable code (SCREAMING_SNAKE). */
  readonly code: Code;

  /**
   * @param code A stable SCREAMING_SNAKE code.
   * @param message What went wrong and what to do next: sentence case, values quoted with `JSON.stringify`.
   * @param options `cause`: the error this one wraps.
   */
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /**
   * Makes `instanceof` check the marker of the class on its right (every subclass inherits this), so it also
   * recognises errors created by another copy of the package. A subclass that was never branded keeps plain
   * `instanceof`.
   *
   * @example
   * ```ts
   * import { AcpKitError } from '@acpkit/errors';
   *
   * const copied = Object.assign(new Error('x'), { [Symbol.for('acpkit.error')]: true });
   * copied instanceof AcpKitError; // true: what another copy of the package would have created
   * ```
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    return isBrandedInstance(this, value);
  }
}

/**
 * Brands a subclass of {@link AcpKitError} with `Symbol.for(marker)` and returns its `isInstance`: the one line a
 * subclass adds, as its static `isInstance` initializer. The marker goes on the class's prototype (non-enumerable,
 * out of logs and JSON), so instances of the class and of its subclasses carry it; the returned guard and
 * `instanceof` (inherited from the root) check it. Use `acpkit.error.<kebab-name>`: the class name without `Acp`
 * and `Error`.
 *
 * @param errorClass The class being defined (name it; a static initializer runs once the class exists).
 * @param marker Its marker: `acpkit.error.<kebab-name>`.
 * @param options `families`: other branded error classes (not its bases) whose `isInstance` and `instanceof` also
 * recognise this class's errors, for an error that belongs to two families (`AcpRemoteOptionError` is an
 * `OptionError` by its base and an `AcpRemoteError` by `families`).
 * @returns A type guard that needs no `this`: `errors.filter(RemoteError.isInstance)` works.
 * @example
 * ```ts
 * import { AcpKitError, brandErrorClass } from '@acpkit/errors';
 *
 * export const QuotaErrorCode = { QuotaExceeded: 'QUOTA_EXCEEDED' } as const;
 * export type QuotaErrorCode = (typeof QuotaErrorCode)[keyof typeof QuotaErrorCode];
 *
 * export class QuotaError extends AcpKitError<QuotaErrorCode> {
 *   static override readonly isInstance = brandErrorClass(QuotaError, 'acpkit.error.quota');
 *   override readonly name: string = 'QuotaError';
 * }
 *
 * QuotaError.isInstance(new QuotaError('QUOTA_EXCEEDED', 'Quota exceeded: try again in 60 s')); // true
 * ```
 */
export function brandErrorClass<Class extends abstract new (...args: never[]) => AcpKitError>(
  errorClass: Class,
  marker: `acpkit.error.${string}`,
  options: { readonly families?: readonly (abstract new (...args: never[]) => AcpKitError)[] } = {},
): (value: unknown) => value is InstanceType<Class> {
  return brand(errorClass, marker, options.families) as (value: unknown) => value is InstanceType<Class>;
}

export type { AcpKitErrorMarker };
