/** Summary of one figure over the repeats of a run. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/**
 * Min, median and max of a non-empty list.
 *
 * @example
 * ```ts
 * spread([3, 1, 2]); // { min: 1, median: 2, max: 3 }
 * ```
 */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('spread of an empty list');
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

/**
 * The value at quantile `q` (0..1) of a list, nearest-rank.
 *
 * @example
 * ```ts
 * quantile([1, 2, 3, 4], 0.5); // 2
 * ```
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of an empty list');
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Whether a smaller value is better (times, bytes) or a larger one (rates). */
export type FigureKind = 'time' | 'rate' | 'size';

/**
 * Combines the raw hops a path is made of into its same-run baseline. Times add up (a message crosses every
 * hop in turn); rates combine as the rate of the summed per-message times; sizes add up.
 *
 * @example
 * ```ts
 * combineHops('time', [40, 35, 40]); // 115
 * combineHops('rate', [60_000, 30_000]); // 20_000
 * ```
 */
export function combineHops(kind: FigureKind, hops: readonly number[]): number {
  if (kind === 'rate') return 1 / hops.reduce((total, rate) => total + 1 / rate, 0);
  return hops.reduce((total, value) => total + value, 0);
}
