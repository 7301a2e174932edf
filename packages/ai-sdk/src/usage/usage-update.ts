// A step's token usage (the AI SDK's `finish-step` usage) as ACP's `usage_update`: the tokens now in context, the
// model's window, and the session's cost so far when the author gave prices.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionState } from '../session-state/session-state.js';
import type { UsageOptions } from './usage-options.js';

/** The part of the AI SDK's `LanguageModelUsage` read here (ai 6 and 7 share these fields). */
export interface StepUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly cachedInputTokens?: number | undefined;
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined } | undefined;
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The `usage_update` after a step, adding the step's cost to `state.cost` (when `usage.prices` is given).
 * `undefined` without usage options (ACP's update needs the window size).
 */
export function usageUpdateAfterStep(
  usage: UsageOptions | undefined,
  step: StepUsage | undefined,
  state: SessionState,
): SessionUpdate | undefined {
  if (usage === undefined || step === undefined) return undefined;
  const input = count(step.inputTokens);
  const output = count(step.outputTokens);
  const used = count(step.totalTokens) || input + output;
  const { prices } = usage;
  if (prices !== undefined) {
    const cached = Math.min(input, count(step.inputTokenDetails?.cacheReadTokens ?? step.cachedInputTokens));
    const cost =
      ((input - cached) * prices.inputPerMillion +
        cached * (prices.cachedInputPerMillion ?? prices.inputPerMillion) +
        output * prices.outputPerMillion) /
      1_000_000;
    const currency = prices.currency ?? 'USD';
    const before = state.cost?.currency === currency ? state.cost.amount : 0;
    state.cost = { amount: before + cost, currency };
  }
  return {
    sessionUpdate: 'usage_update',
    used: Math.min(used, Number.MAX_SAFE_INTEGER),
    size: usage.contextWindow,
    ...(state.cost === undefined
      ? {}
      : { cost: { amount: round(state.cost.amount), currency: state.cost.currency } }),
  };
}

/** Cost to a millionth of the unit: floating sums must not show 0.30000000000000004. */
function round(amount: number): number {
  return Math.round(amount * 1_000_000) / 1_000_000;
}
