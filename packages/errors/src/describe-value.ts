// How an error message shows a value it rejected: JSON when the value has one, shortened, never a function's source.

/** Options of {@link describeRejectedValue}. */
export interface DescribeRejectedValueOptions {
  /** The most characters shown; longer text ends with `…`. Default 120. */
  readonly maxCharacters?: number;
  /** Rewrites the whole text before it is shortened (e.g. redacts secrets in URLs, so no part of one survives). */
  readonly rewrite?: (text: string) => string;
}

/**
 * How an error message shows a rejected value: `undefined`, `NaN`/`Infinity` and `a function` by name, anything else
 * as JSON (or `String(value)` when it has none), shortened to `maxCharacters`. Every ACP Kit package's option checks
 * use it, so a bad option reads the same whichever package refused it.
 *
 * @example
 * ```ts
 * import { describeRejectedValue } from '@acpkit/errors';
 *
 * `maxSteps must be a positive integer, got ${describeRejectedValue('20')}`; // … got "20"
 * ```
 */
export function describeRejectedValue(value: unknown, options: DescribeRejectedValueOptions = {}): string {
  const { maxCharacters = 120, rewrite } = options;
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  if (rewrite !== undefined) text = rewrite(text);
  return text.length > maxCharacters ? `${text.slice(0, maxCharacters)}…` : text;
}
