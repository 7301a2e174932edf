// What a turn runs with, from the agent's options and the session's state: the model (the `model` config option),
// the system prompt and tools (the mode), the call settings (each config option's contribution) and usage options.
import type { LanguageModel, ToolSet } from 'ai';
import { type AiSdkCallSettings, configValue, MODEL_OPTION_ID } from '../config/config-options.js';
import { currentMode, modeAllows } from '../modes/modes.js';
import type { ResolvedAgentOptions } from '../options.js';
import type { UsageOptions } from '../usage/usage-options.js';
import type { SessionState } from './session-state.js';

/** The model call's setup for one turn. */
export interface TurnSetup {
  readonly model: LanguageModel;
  readonly system: string | undefined;
  /** Every tool the model may call in this turn (unbound; the turn binds session tools). */
  readonly tools: ToolSet;
  readonly callSettings: AiSdkCallSettings;
  readonly usage: UsageOptions | undefined;
}

function mergeSettings(base: AiSdkCallSettings, extra: AiSdkCallSettings | undefined): AiSdkCallSettings {
  if (extra === undefined) return base;
  const providerOptions =
    base.providerOptions === undefined || extra.providerOptions === undefined
      ? (extra.providerOptions ?? base.providerOptions)
      : mergeProviderOptions(base.providerOptions, extra.providerOptions);
  return { ...base, ...extra, ...(providerOptions === undefined ? {} : { providerOptions }) };
}

function mergeProviderOptions(
  base: NonNullable<AiSdkCallSettings['providerOptions']>,
  extra: NonNullable<AiSdkCallSettings['providerOptions']>,
): NonNullable<AiSdkCallSettings['providerOptions']> {
  const merged: Record<string, unknown> = { ...base };
  for (const [provider, values] of Object.entries(extra)) {
    merged[provider] = { ...(base[provider] ?? {}), ...values };
  }
  return merged as NonNullable<AiSdkCallSettings['providerOptions']>;
}

/** The setup of a turn of a session in `state`, with the editor's MCP tools (`extraTools`). */
export function turnSetup(
  options: ResolvedAgentOptions,
  state: SessionState,
  extraTools: ToolSet,
): TurnSetup {
  const { config } = options;
  const modelId = configValue(config, state.config, MODEL_OPTION_ID);
  const choice = typeof modelId === 'string' ? config.models.get(modelId) : undefined;
  const mode = currentMode(options.modes, state.modeId);
  let tools: ToolSet = options.tools;
  if (Object.keys(extraTools).length > 0) tools = { ...extraTools, ...tools };
  if (mode?.tools !== undefined) {
    tools = Object.fromEntries(Object.entries(tools).filter(([name]) => modeAllows(mode, name)));
  }
  let callSettings = options.callSettings;
  for (const option of config.options) {
    const value = configValue(config, state.config, option.id);
    if (value !== undefined && option.callSettings !== undefined) {
      callSettings = mergeSettings(callSettings, option.callSettings(value));
    }
  }
  return {
    model: choice?.model ?? options.model,
    system: mode?.system ?? options.system,
    tools,
    callSettings,
    usage: choice?.usage ?? options.usage,
  };
}
