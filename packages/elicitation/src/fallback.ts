import { ElicitationErrorCode, InvalidElicitationFallbackError } from './errors.js';
import {
  ChoiceElicitationAccepted,
  ChoiceElicitationCancelled,
  ChoiceElicitationDeclined,
  type ChoiceElicitationResult,
  type ElicitationChoice,
} from './results.js';

/**
 * A fallback for clients without form elicitation: returns a result variant, synchronously or not. An accepted
 * value must be one of the offered choice values.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationDeclined, type ChoiceElicitationFallback } from '@acpkit/elicitation';
 *
 * const fallback: ChoiceElicitationFallback = () => new ChoiceElicitationDeclined();
 * ```
 */
export type ChoiceElicitationFallback = () =>
  | ChoiceElicitationResult<unknown>
  | Promise<ChoiceElicitationResult<unknown>>;

/**
 * Compares an offered value with the value a fallback accepted; only an exact `true` counts as a match.
 *
 * @example
 * ```ts
 * import type { ChoiceValueEquals } from '@acpkit/elicitation';
 *
 * const sameId: ChoiceValueEquals<{ id: string }> = (offered, returned) =>
 *   offered.id === (returned as { id?: unknown }).id;
 * ```
 */
export type ChoiceValueEquals<T> = (offeredValue: T, fallbackValue: unknown) => boolean;

function matchesOffered<T>(
  offeredValue: T,
  fallbackValue: unknown,
  equals: ChoiceValueEquals<T> | undefined,
): boolean {
  if (Object.is(offeredValue, fallbackValue)) return true;
  if (equals === undefined) return false;
  try {
    return equals(offeredValue, fallbackValue) === true;
  } catch {
    // A comparator that throws on this pair is no match; the next choice still gets its chance.
    return false;
  }
}

/**
 * Checks a fallback's answer against the offered choices. Accepted → a new accepted result holding the **offered**
 * value (first match in order: `Object.is`, then `equals`); declined / cancelled → the same object.
 *
 * @internal Used by `AcpSessionContext.askChoice`; exported for the unit tests only.
 */
export function resolveFallbackResult<T>(
  result: unknown,
  choices: readonly ElicitationChoice<T>[],
  equals?: ChoiceValueEquals<T>,
): ChoiceElicitationResult<T> {
  if (ChoiceElicitationAccepted.isInstance(result)) {
    for (const choice of choices) {
      if (matchesOffered(choice.value, result.value, equals)) {
        return new ChoiceElicitationAccepted(choice.value, 'fallback');
      }
    }
    throw new InvalidElicitationFallbackError(
      ElicitationErrorCode.FallbackValueNotOffered,
      'The accepted elicitation fallback value was not offered.',
      result.value,
    );
  }
  if (ChoiceElicitationDeclined.isInstance(result) || ChoiceElicitationCancelled.isInstance(result)) {
    return result;
  }
  throw new InvalidElicitationFallbackError(
    ElicitationErrorCode.FallbackNotAResult,
    'The elicitation fallback returned a plain value; return a ChoiceElicitationResult variant ' +
      '(new ChoiceElicitationAccepted(value), ChoiceElicitationDeclined or ChoiceElicitationCancelled), ' +
      "or wrap a 1.6.0-style fallback with legacyFallback from '@acpkit/compat-1.6'.",
    result,
  );
}
