import { ElicitationAccepted, type ElicitationResult, isElicitationResult } from '@acpkit/elicitation';

/**
 * `code` of the `DeprecationWarning` emitted the first time a legacy fallback returns a plain value.
 *
 * @example
 * ```ts
 * import { LEGACY_FALLBACK_WARNING_CODE } from '@acpkit/compat-1.6';
 *
 * process.on('warning', (warning) => {
 *   if ((warning as Error & { code?: string }).code === LEGACY_FALLBACK_WARNING_CODE) console.error(warning.message);
 * });
 * ```
 */
export const LEGACY_FALLBACK_WARNING_CODE = 'ACPKIT_DEP001';

const LEGACY_FALLBACK_WARNING =
  'Returning a plain value from an askChoice fallback is deprecated; return a ElicitationResult variant ' +
  '(new ElicitationAccepted(value), ElicitationDeclined or ElicitationCancelled from ' +
  "'@acpkit/elicitation') instead. legacyFallback from '@acpkit/compat-1.6' will be removed in the next major release of '@acpkit/elicitation'.";

// Kept on the process-wide registry so the warning appears once per process, even with two copies loaded.
const WARNED = Symbol.for('acpkit.compat-1.6.legacy-fallback-warned');

function warnOnce(): void {
  const registry = globalThis as typeof globalThis & { [WARNED]?: boolean };
  if (registry[WARNED] === true) return;
  registry[WARNED] = true;
  process.emitWarning(LEGACY_FALLBACK_WARNING, {
    type: 'DeprecationWarning',
    code: LEGACY_FALLBACK_WARNING_CODE,
  });
}

/**
 * A 1.6.0-style fallback: returns a plain choice value (or already a result variant), synchronously or not.
 *
 * @deprecated Use `ElicitationFallback` from `@acpkit/elicitation`. Removal: the next major release of `@acpkit/elicitation`.
 * @example
 * ```ts
 * import type { LegacyChoiceFallback } from '@acpkit/compat-1.6';
 *
 * const legacy: LegacyChoiceFallback<'a' | 'b'> = () => 'a';
 * ```
 */
export type LegacyChoiceFallback<T> = () => T | ElicitationResult<T> | Promise<T | ElicitationResult<T>>;

/**
 * Adapts a 1.6.0-style `askChoice` fallback that returns a plain value. The value is wrapped as
 * `ElicitationAccepted`, so `askChoice` applies the same offered-choice check as for any accepted fallback
 * (`null` and `undefined` count as values when offered); a result variant passes through untouched. The first plain
 * value emits a `DeprecationWarning` (code `ACPKIT_DEP001`) once per process. Inside `askChoice`'s options the
 * value type is the offered values', so a plain value that was not offered is a type error, as for any fallback.
 *
 * @deprecated Return `new ElicitationAccepted(value)`, `new ElicitationDeclined()` or
 * `new ElicitationCancelled()` from the fallback instead. Removal: the next major release of `@acpkit/elicitation`.
 * @example
 * ```ts
 * import { legacyFallback } from '@acpkit/compat-1.6';
 * import type { AcpSessionContext } from '@acpkit/elicitation';
 *
 * async function ask(session: AcpSessionContext) {
 *   return session.askChoice('Pick one', [{ value: 'a', label: 'A' }] as const, {
 *     fallback: legacyFallback(() => 'a' as const),
 *   });
 * }
 * ```
 */
export function legacyFallback<T>(
  // `NoInfer`: the value type comes from the choices (through `askChoice`'s options), so a fallback returning a
  // result variant or a value that was not offered is checked against them instead of widening them.
  fallback: NoInfer<LegacyChoiceFallback<T>>,
): () => Promise<ElicitationResult<T>> {
  return async () => {
    const value = await fallback();
    if (isElicitationResult(value)) return value as ElicitationResult<T>;
    warnOnce();
    return new ElicitationAccepted(value, 'fallback');
  };
}
