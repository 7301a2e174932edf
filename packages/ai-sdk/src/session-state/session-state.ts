// The choices and state of one session beyond its conversation: the mode, the config option values (the model is
// one of them), the plan and the session's cost so far. One object, `state`, in the live session and in the stored
// record, so a store keeps the user's choices with the session.
import type { PlanEntry } from '@agentclientprotocol/sdk';

/** A config option's value: a select option's value id, or a boolean. */
export type ConfigValue = string | boolean;

/**
 * The user's choices a session remembers besides its messages (kept in the stored record's `state`, beside the
 * tools allowed for the session).
 *
 * @example
 * ```ts
 * import type { AiSdkSessionChoices } from '@acpkit/ai-sdk';
 *
 * const choices: AiSdkSessionChoices = { modeId: 'plan', config: { model: 'fast' } };
 * ```
 */
export interface AiSdkSessionChoices {
  /** The current mode's id (see `modes`); left out when the agent has no modes. */
  readonly modeId?: string | undefined;
  /** The values of the session's config options by option id (`model` among them when `models` are given). */
  readonly config?: Readonly<Record<string, ConfigValue>> | undefined;
  /** The model's last plan (`planTool()`), shown again on `session/load`. */
  readonly plan?: readonly PlanEntry[] | undefined;
  /** The session's cost so far, when the agent has prices (`usage.prices`). */
  readonly cost?: { readonly amount: number; readonly currency: string } | undefined;
}

/** The live, mutable form of {@link AiSdkSessionChoices}. */
export class SessionState {
  modeId: string | undefined;
  readonly config: Map<string, ConfigValue>;
  plan: PlanEntry[] | undefined;
  cost: { amount: number; currency: string } | undefined;

  constructor(stored: AiSdkSessionChoices | undefined) {
    this.modeId = stored?.modeId;
    this.config = new Map(Object.entries(stored?.config ?? {}));
    this.plan = stored?.plan === undefined ? undefined : [...stored.plan];
    this.cost = stored?.cost === undefined ? undefined : { ...stored.cost };
  }

  /** A plain copy for the store. */
  toStored(): AiSdkSessionChoices {
    return {
      ...(this.modeId === undefined ? {} : { modeId: this.modeId }),
      config: Object.fromEntries(this.config),
      ...(this.plan === undefined ? {} : { plan: [...this.plan] }),
      ...(this.cost === undefined ? {} : { cost: { ...this.cost } }),
    };
  }
}
