// Session config options (ACP `configOptions`, `session/set_config_option`, `config_option_update`): the model
// picker made from `models`, and the author's own options (`configOptions`), each able to change the model call.
import { invalidOption, isPlainObject } from '@acpkit/errors';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { LanguageModel, streamText } from 'ai';
import type { ConfigValue } from '../session-state/session-state.js';
import { resolveUsage, type UsageOptions } from '../usage/usage-options.js';

/**
 * The model-call settings passed to `streamText` on every call of a turn (the AI SDK's own option names).
 *
 * @example
 * ```ts
 * import type { AiSdkCallSettings } from '@acpkit/ai-sdk';
 *
 * const settings: AiSdkCallSettings = { temperature: 0.2, maxOutputTokens: 2_000, maxRetries: 1 };
 * ```
 */
export type AiSdkCallSettings = Pick<
  Parameters<typeof streamText>[0],
  | 'maxOutputTokens'
  | 'temperature'
  | 'topP'
  | 'topK'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'stopSequences'
  | 'seed'
  | 'maxRetries'
  | 'headers'
  | 'providerOptions'
>;

/**
 * One model the user can pick (see {@link AiSdkAgentOptions.models}).
 *
 * @example
 * ```ts
 * import type { AiSdkModelChoice } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const fast: LanguageModel;
 * const choice: AiSdkModelChoice = { model: fast, name: 'Fast', usage: { contextWindow: 128_000 } };
 * ```
 */
export interface AiSdkModelChoice {
  readonly model: LanguageModel;
  /** What the client shows. */
  readonly name: string;
  readonly description?: string | undefined;
  /** This model's context window and prices (in place of the agent's `usage`). */
  readonly usage?: UsageOptions | undefined;
}

/**
 * An option the user sets per session (ACP `configOptions`): a select or a boolean, and what it changes in the model
 * call.
 *
 * @example
 * ```ts
 * import type { AiSdkConfigOption } from '@acpkit/ai-sdk';
 *
 * const effort: AiSdkConfigOption = {
 *   id: 'effort',
 *   name: 'Reasoning effort',
 *   category: 'thought_level',
 *   type: 'select',
 *   options: [{ value: 'low', name: 'Low' }, { value: 'high', name: 'High' }],
 *   default: 'low',
 *   callSettings: (value) => ({ providerOptions: { openai: { reasoningEffort: String(value) } } }),
 * };
 * ```
 */
export type AiSdkConfigOption = {
  readonly id: string;
  readonly name: string;
  readonly description?: string | undefined;
  /** ACP's category (`mode`, `model`, `thought_level`, or your own `_…`). */
  readonly category?: string | undefined;
  /** The settings this value adds to every model call of the session (merged over `callSettings`). */
  readonly callSettings?: ((value: ConfigValue) => AiSdkCallSettings | undefined) | undefined;
} & (
  | {
      readonly type: 'select';
      readonly options: readonly {
        readonly value: string;
        readonly name: string;
        readonly description?: string;
      }[];
      readonly default: string;
    }
  | { readonly type: 'boolean'; readonly default: boolean }
);

/** The id of the model picker's option. */
export const MODEL_OPTION_ID = 'model';

/** `models` and `configOptions`, checked. */
export interface ResolvedConfig {
  readonly models: ReadonlyMap<string, AiSdkModelChoice>;
  readonly defaultModelId: string | undefined;
  readonly options: readonly AiSdkConfigOption[];
}

/** Checks `models`, `defaultModel` and `configOptions`. */
export function resolveConfig(
  models: unknown,
  defaultModel: unknown,
  configOptions: unknown,
): ResolvedConfig {
  const modelMap = new Map<string, AiSdkModelChoice>();
  if (models !== undefined) {
    if (!isPlainObject(models)) throw invalidOption('models', 'an object { [id]: { model, name } }', models);
    for (const [id, choice] of Object.entries(models)) {
      if (!isPlainObject(choice) || !(isPlainObject(choice.model) || typeof choice.model === 'string')) {
        throw invalidOption(`models.${id}`, 'an object { model, name } with an AI SDK model', choice);
      }
      if (typeof choice.name !== 'string' || choice.name === '') {
        throw invalidOption(`models.${id}.name`, 'a non-empty string', choice.name);
      }
      resolveUsage(`models.${id}.usage`, choice.usage);
      modelMap.set(id, choice as unknown as AiSdkModelChoice);
    }
  }
  if (defaultModel !== undefined && !modelMap.has(defaultModel as string)) {
    throw invalidOption(
      'defaultModel',
      `one of the ids of models (${[...modelMap.keys()].join(', ')})`,
      defaultModel,
    );
  }
  const options: AiSdkConfigOption[] = [];
  if (configOptions !== undefined) {
    if (!Array.isArray(configOptions))
      throw invalidOption('configOptions', 'an array of options', configOptions);
    const seen = new Set<string>(modelMap.size > 0 ? [MODEL_OPTION_ID] : []);
    configOptions.forEach((option: unknown, index) => {
      const at = `configOptions[${index}]`;
      if (
        !isPlainObject(option) ||
        typeof option.id !== 'string' ||
        option.id === '' ||
        typeof option.name !== 'string'
      ) {
        throw invalidOption(at, 'an object { id, name, type, default, … }', option);
      }
      if (seen.has(option.id))
        throw invalidOption(`${at}.id`, 'an id no other option (nor `model`) has', option.id);
      seen.add(option.id);
      if (option.type === 'boolean') {
        if (typeof option.default !== 'boolean')
          throw invalidOption(`${at}.default`, 'true or false', option.default);
      } else if (option.type === 'select') {
        const values = Array.isArray(option.options)
          ? option.options.map((entry: unknown) => (isPlainObject(entry) ? entry.value : undefined))
          : [];
        if (values.length === 0 || values.some((entry) => typeof entry !== 'string')) {
          throw invalidOption(`${at}.options`, 'a non-empty array of { value, name }', option.options);
        }
        if (!values.includes(option.default)) {
          throw invalidOption(`${at}.default`, `one of ${values.join(', ')}`, option.default);
        }
      } else {
        throw invalidOption(`${at}.type`, "'select' or 'boolean'", option.type);
      }
      if (option.callSettings !== undefined && typeof option.callSettings !== 'function') {
        throw invalidOption(`${at}.callSettings`, 'a function', option.callSettings);
      }
      options.push(option as unknown as AiSdkConfigOption);
    });
  }
  return {
    models: modelMap,
    defaultModelId: (defaultModel as string | undefined) ?? modelMap.keys().next().value,
    options,
  };
}

/** The value of option `id` in a session: its set value when still valid, else the default. */
export function configValue(
  config: ResolvedConfig,
  values: ReadonlyMap<string, ConfigValue>,
  id: string,
): ConfigValue | undefined {
  const value = values.get(id);
  if (id === MODEL_OPTION_ID && config.models.size > 0) {
    return typeof value === 'string' && config.models.has(value) ? value : config.defaultModelId;
  }
  const option = config.options.find((candidate) => candidate.id === id);
  if (option === undefined) return undefined;
  if (option.type === 'boolean') return typeof value === 'boolean' ? value : option.default;
  return typeof value === 'string' && option.options.some((entry) => entry.value === value)
    ? value
    : option.default;
}

/** The session's options as ACP lists them (`configOptions`); empty when the agent has none. */
export function configOptionsFor(
  config: ResolvedConfig,
  values: ReadonlyMap<string, ConfigValue>,
): SessionConfigOption[] {
  const listed: SessionConfigOption[] = [];
  if (config.models.size > 0) {
    listed.push({
      id: MODEL_OPTION_ID,
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: configValue(config, values, MODEL_OPTION_ID) as string,
      options: [...config.models].map(([value, choice]) => ({
        value,
        name: choice.name,
        ...(choice.description === undefined ? {} : { description: choice.description }),
      })),
    });
  }
  for (const option of config.options) {
    const common = {
      id: option.id,
      name: option.name,
      ...(option.description === undefined ? {} : { description: option.description }),
      ...(option.category === undefined ? {} : { category: option.category }),
    };
    const current = configValue(config, values, option.id);
    listed.push(
      option.type === 'boolean'
        ? { ...common, type: 'boolean', currentValue: current as boolean }
        : {
            ...common,
            type: 'select',
            currentValue: current as string,
            options: option.options.map((entry) => ({ ...entry })),
          },
    );
  }
  return listed;
}

/**
 * Checks a `session/set_config_option` value: `undefined` when it is valid, else why not (for the -32602 error).
 */
export function configValueProblem(config: ResolvedConfig, id: string, value: unknown): string | undefined {
  if (id === MODEL_OPTION_ID && config.models.size > 0) {
    return typeof value === 'string' && config.models.has(value)
      ? undefined
      : `model must be one of ${[...config.models.keys()].join(', ')}`;
  }
  const option = config.options.find((candidate) => candidate.id === id);
  const known = [
    ...(config.models.size > 0 ? [MODEL_OPTION_ID] : []),
    ...config.options.map((entry) => entry.id),
  ];
  if (option === undefined)
    return `this agent has no config option "${id}" (it has: ${known.join(', ') || 'none'})`;
  if (option.type === 'boolean')
    return typeof value === 'boolean' ? undefined : `${id} must be true or false`;
  return typeof value === 'string' && option.options.some((entry) => entry.value === value)
    ? undefined
    : `${id} must be one of ${option.options.map((entry) => entry.value).join(', ')}`;
}
