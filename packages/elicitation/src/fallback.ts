import { ElicitationErrorCode, InvalidElicitationFallbackError } from './errors.js';
import {
  ElicitationAccepted,
  ElicitationCancelled,
  type ElicitationChoice,
  ElicitationDeclined,
  type ElicitationResult,
} from './results.js';

/**
 * A fallback for clients without form elicitation: returns a result variant of the question's value type,
 * synchronously or not. For `askChoice` / `askChoices` an accepted value must be one of the offered values.
 *
 * @example
 * ```ts
 * import { ElicitationAccepted, type ElicitationFallback } from '@acpkit/elicitation';
 *
 * const fallback: ElicitationFallback<'preview' | 'production'> = () => new ElicitationAccepted('preview');
 * ```
 */
export type ElicitationFallback<T = unknown> = () => ElicitationResult<T> | Promise<ElicitationResult<T>>;

/**
 * Compares an offered value with the value a fallback accepted, both of the choices' value type; only an exact
 * `true` counts as a match.
 *
 * @example
 * ```ts
 * import type { ChoiceValueEquals } from '@acpkit/elicitation';
 *
 * const sameId: ChoiceValueEquals<{ id: string }> = (offered, returned) => offered.id === returned.id;
 * ```
 */
export type ChoiceValueEquals<T> = (offeredValue: T, fallbackValue: T) => boolean;

const NOT_OFFERED = Symbol('not offered');

/** The offered value matching `fallbackValue` (first in order: `Object.is`, then `equals`), or NOT_OFFERED. */
function offeredValueFor<T>(
  choices: readonly ElicitationChoice<T>[],
  fallbackValue: unknown,
  equals: ChoiceValueEquals<T> | undefined,
): T | typeof NOT_OFFERED {
  for (const { value } of choices) {
    if (Object.is(value, fallbackValue)) return value;
    if (equals === undefined) continue;
    try {
      if (equals(value, fallbackValue as T) === true) return value;
    } catch {
      // A comparator that throws on this pair is no match; the next choice still gets its chance.
    }
  }
  return NOT_OFFERED;
}

function notOffered(value: unknown): InvalidElicitationFallbackError {
  return new InvalidElicitationFallbackError(
    ElicitationErrorCode.FallbackValueNotOffered,
    'The accepted elicitation fallback value was not offered.',
    value,
  );
}

/**
 * Checks that a fallback returned a result variant: declined / cancelled come back as they are, an accepted result
 * goes through `acceptedValue` (which returns the value to keep, or throws).
 *
 * @internal Used by `AcpSessionContext`'s ask methods; exported for the unit tests only.
 */
export function resolveFallback<T>(
  result: unknown,
  acceptedValue: (value: unknown) => T,
): ElicitationResult<T> {
  if (ElicitationAccepted.isInstance(result)) {
    return new ElicitationAccepted(acceptedValue(result.value), 'fallback');
  }
  if (ElicitationDeclined.isInstance(result) || ElicitationCancelled.isInstance(result)) return result;
  throw new InvalidElicitationFallbackError(
    ElicitationErrorCode.FallbackNotAResult,
    'The elicitation fallback returned a plain value; return an ElicitationResult variant ' +
      '(new ElicitationAccepted(value), ElicitationDeclined or ElicitationCancelled), ' +
      "or wrap a 1.6.0-style fallback with legacyFallback from '@acpkit/compat-1.6'.",
    result,
  );
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
): ElicitationResult<T> {
  return resolveFallback(result, (value) => {
    const offered = offeredValueFor(choices, value, equals);
    if (offered === NOT_OFFERED) throw notOffered(value);
    return offered;
  });
}

/**
 * Like {@link resolveFallbackResult} for a multi-select: an accepted array whose every item is an offered value,
 * each replaced by the offered value it matched.
 *
 * @internal Used by `AcpSessionContext.askChoices`; exported for the unit tests only.
 */
export function resolveFallbackResults<T>(
  result: unknown,
  choices: readonly ElicitationChoice<T>[],
  equals?: ChoiceValueEquals<T>,
): ElicitationResult<T[]> {
  return resolveFallback(result, (values) => {
    if (!Array.isArray(values)) throw notOffered(values);
    return values.map((value) => {
      const offered = offeredValueFor(choices, value, equals);
      if (offered === NOT_OFFERED) throw notOffered(value);
      return offered;
    });
  });
}
