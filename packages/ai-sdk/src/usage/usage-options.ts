// What the author tells the agent about a model's usage: its context window (ACP's `usage_update.size`; the AI
// SDK's model interface does not say it) and, optionally, its prices for the session's cost.
import { invalidOption } from '@acpkit/errors';

/**
 * A model's context window and prices; with it the agent sends a `usage_update` after each step.
 *
 * @example
 * ```ts
 * import type { UsageOptions } from '@acpkit/ai-sdk';
 *
 * const usage: UsageOptions = {
 *   contextWindow: 200_000,
 *   prices: { inputPerMillion: 3, outputPerMillion: 15, currency: 'USD' },
 * };
 * ```
 */
export interface UsageOptions {
  /** The model's context window in tokens (`usage_update.size`). */
  readonly contextWindow: number;
  /** Prices per million tokens; with them each `usage_update` carries the session's cost so far. */
  readonly prices?:
    | {
        readonly inputPerMillion: number;
        readonly outputPerMillion: number;
        /** Cached input tokens, when the provider reports them. Default: `inputPerMillion`. */
        readonly cachedInputPerMillion?: number | undefined;
        /** ISO 4217 code or another unit. Default `USD`. */
        readonly currency?: string | undefined;
      }
    | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonNegative(option: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidOption(option, 'a finite number ≥ 0', value);
  }
}

/** Checks a `usage` option (at `option`, e.g. `usage` or `models.fast.usage`). */
export function resolveUsage(option: string, value: unknown): UsageOptions | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalidOption(option, 'an object { contextWindow, prices? }', value);
  if (
    typeof value.contextWindow !== 'number' ||
    !Number.isSafeInteger(value.contextWindow) ||
    value.contextWindow < 1
  ) {
    throw invalidOption(`${option}.contextWindow`, 'a positive integer (tokens)', value.contextWindow);
  }
  const prices = value.prices;
  if (prices !== undefined) {
    if (!isRecord(prices))
      throw invalidOption(`${option}.prices`, 'an object { inputPerMillion, outputPerMillion }', prices);
    nonNegative(`${option}.prices.inputPerMillion`, prices.inputPerMillion);
    nonNegative(`${option}.prices.outputPerMillion`, prices.outputPerMillion);
    if (prices.cachedInputPerMillion !== undefined) {
      nonNegative(`${option}.prices.cachedInputPerMillion`, prices.cachedInputPerMillion);
    }
    if (prices.currency !== undefined && (typeof prices.currency !== 'string' || prices.currency === '')) {
      throw invalidOption(`${option}.prices.currency`, 'a non-empty string', prices.currency);
    }
  }
  return value as unknown as UsageOptions;
}
