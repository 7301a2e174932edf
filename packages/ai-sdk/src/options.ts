// The options of createAiSdkAgent, and their one check: every option is validated here, once, with one error
// (INVALID_OPTION naming the option, what is allowed and what was given). The rest of the package sees only
// ResolvedAgentOptions.
import {
  invalidOption,
  isPlainObject as isObject,
  optionalBoolean,
  optionalString,
  positiveInteger,
  requiredString,
} from '@acpkit/errors';
import { DEFAULT_MAX_OPEN_SESSIONS, memorySessionStore } from '@acpkit/sessions';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { LanguageModel, ToolSet } from 'ai';
import { type AiSdkCommand, resolveCommands } from './commands/slash-commands.js';
import {
  type AiSdkCallSettings,
  type AiSdkConfigOption,
  type AiSdkModelChoice,
  type ResolvedConfig,
  resolveConfig,
} from './config/config-options.js';
import { type AiSdkMcpServers, resolveMcp } from './mcp/mcp-option.js';
import { type AiSdkMode, resolveModes } from './modes/modes.js';
import type { AiSdkSessionStore } from './session-store.js';
import { resolveUsage, type UsageOptions } from './usage/usage-options.js';

/**
 * What the model takes besides text; it sets the `promptCapabilities` the agent advertises in `initialize`, so a
 * client only sends images or audio when the model can read them. The AI SDK's model interface does not say which
 * media a model takes, so the author declares it.
 *
 * @example
 * ```ts
 * import type { ModelInputs } from '@acpkit/ai-sdk';
 *
 * const inputs: ModelInputs = { image: true }; // a vision model
 * ```
 */
export interface ModelInputs {
  /** Images (ACP `image` blocks and embedded `image/*` resources) reach the model as file parts. Default `false`. */
  readonly image?: boolean | undefined;
  /** Audio (ACP `audio` blocks and embedded `audio/*` resources) reaches the model as file parts. Default `false`. */
  readonly audio?: boolean | undefined;
}

/**
 * A tool call as {@link AiSdkAgentOptions.describeToolCall} sees it.
 *
 * @example
 * ```ts
 * import type { ToolCallInfo } from '@acpkit/ai-sdk';
 *
 * const title = (call: ToolCallInfo) => `${call.toolName}(${JSON.stringify(call.input)})`;
 * ```
 */
export interface ToolCallInfo {
  readonly toolName: string;
  /** The input the model gave, parsed by the tool's input schema. */
  readonly input: unknown;
}

/**
 * How a tool call is shown to the client (ACP `tool_call.title`, `kind` and `locations`).
 *
 * @example
 * ```ts
 * import type { ToolCallDisplay } from '@acpkit/ai-sdk';
 *
 * const display: ToolCallDisplay = { title: 'Deploy to production', kind: 'execute' };
 * ```
 */
export interface ToolCallDisplay {
  readonly title?: string | undefined;
  readonly kind?: ToolKind | undefined;
  /** Files the call touches (ACP `locations`: the client can follow along). */
  readonly locations?: readonly ToolCallLocation[] | undefined;
}

/**
 * Options of {@link createAiSdkAgent}.
 *
 * @example
 * ```ts
 * import { askUserTool, type AiSdkAgentOptions } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * const options: AiSdkAgentOptions = {
 *   name: 'release-helper',
 *   version: '1.0.0',
 *   model,
 *   system: 'You help release services.',
 *   tools: { askUser: askUserTool() },
 *   maxSteps: 20,
 * };
 * ```
 */
export interface AiSdkAgentOptions<Tools extends ToolSet = ToolSet> {
  /** `agentInfo.name` in the `initialize` response. */
  readonly name: string;
  /** `agentInfo.version` in the `initialize` response. */
  readonly version: string;
  /** `agentInfo.title` in the `initialize` response (a display name). */
  readonly title?: string | undefined;
  /**
   * Any AI SDK language model (a provider's model object, or a gateway model id string). May be left out when
   * `models` is given (the default model is then `defaultModel`, else the first).
   */
  readonly model?: LanguageModel | undefined;
  /** The system prompt; it reaches the model on every call. */
  readonly system?: string | undefined;
  /**
   * The AI SDK tools the model may call. A tool with `needsApproval` asks the client first
   * (`session/request_permission`); `askUserTool()` and `formTool()` let the model ask the user.
   */
  readonly tools?: Tools | undefined;
  /** At most this many model calls (steps) per prompt; then the turn ends with `max_turn_requests`. Default 20. */
  readonly maxSteps?: number | undefined;
  /** What the model takes besides text (sets `promptCapabilities`). Default: text only. */
  readonly modelInputs?: ModelInputs | undefined;
  /**
   * Where sessions are kept for `session/list`, `load`, `resume` and `delete`: any `@acpkit/sessions` store
   * (`memorySessionStore`, `fileSessionStore`, `sqliteSessionStore`, `postgresSessionStore`). Every turn is saved
   * when it ends (only what it added). Default: a new `memorySessionStore()` for this agent (pass one made once at
   * module level to share it between connections). `null`: sessions live only as long as their connection, and
   * only `session/close` is advertised.
   */
  readonly sessionStore?: AiSdkSessionStore | null | undefined;
  /**
   * The title of a session (`session/list`, `session_info_update`), from its first prompt's text. Default: the
   * first non-blank line (`defaultSessionTitle` of `@acpkit/sessions`). Return `null` for no title.
   */
  readonly sessionTitle?:
    | ((prompt: { readonly sessionId: string; readonly text: string }) => string | null)
    | undefined;
  /** Title and kind of a tool call as the client shows it. Default: the tool's `title`, else its name; kind `other`. */
  readonly describeToolCall?: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;
  /** Settings passed to every model call (`temperature`, `maxOutputTokens`, `maxRetries`, `providerOptions`, …). */
  readonly callSettings?: AiSdkCallSettings | undefined;
  /**
   * Sessions the agent app keeps open in memory at once (one app per connection under `acpremote serve`). Opening
   * one more closes the least recently used idle session (it stays in the session store: `session/load` opens it
   * again; without a store it is gone). Default 100.
   */
  readonly maxOpenSessions?: number | undefined;

  // The editor's world (issue 30): models, config options, modes, commands, usage, the editor's MCP servers.
  /**
   * Models the user picks per session: a `model` config option (category `model`) switched with
   * `session/set_config_option`; the choice is kept in the session's `state`.
   */
  readonly models?: Readonly<Record<string, AiSdkModelChoice>> | undefined;
  /** The id (in `models`) of a new session's model. Default: the first. */
  readonly defaultModel?: string | undefined;
  /** The author's own per-session options (selects and booleans), each able to change the model call. */
  readonly configOptions?: readonly AiSdkConfigOption[] | undefined;
  /** Modes offered in `session/new` (the first is the default); a mode may change the system prompt and tools. */
  readonly modes?: readonly AiSdkMode[] | undefined;
  /** Slash commands, announced with `available_commands_update`; `/name …` runs one. */
  readonly commands?: readonly AiSdkCommand[] | undefined;
  /** The model's context window (and prices): a `usage_update` follows each step. */
  readonly usage?: UsageOptions | undefined;
  /**
   * Connects the MCP servers the editor passes in `session/new`/`load` and gives the model their tools:
   * `editorMcpServers()` from `@acpkit/ai-sdk/mcp` (needs `@modelcontextprotocol/sdk`). Default: none (the agent
   * advertises no MCP transports beyond ACP's required stdio, and ignores the servers).
   */
  readonly mcp?: AiSdkMcpServers | undefined;
}

/** The options after their check, with every default applied. */
export interface ResolvedAgentOptions {
  readonly name: string;
  readonly version: string;
  readonly title: string | undefined;
  readonly model: LanguageModel;
  readonly system: string | undefined;
  readonly tools: ToolSet;
  readonly maxSteps: number;
  readonly modelInputs: Required<{ [Key in keyof ModelInputs]: boolean }>;
  readonly sessionStore: AiSdkSessionStore | null;
  readonly sessionTitle:
    | ((prompt: { readonly sessionId: string; readonly text: string }) => string | null)
    | undefined;
  readonly describeToolCall: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;
  readonly callSettings: AiSdkCallSettings;
  readonly maxOpenSessions: number;
  readonly config: ResolvedConfig;
  readonly modes: readonly AiSdkMode[];
  readonly commands: readonly AiSdkCommand[];
  readonly usage: UsageOptions | undefined;
  readonly mcp: AiSdkMcpServers | undefined;
}

/** The default of {@link AiSdkAgentOptions.maxSteps} (the AI SDK's `ToolLoopAgent` uses the same). */
export const DEFAULT_MAX_STEPS = 20;

function resolveTools(value: unknown): ToolSet {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalidOption('tools', 'an object of AI SDK tools', value);
  for (const [name, tool] of Object.entries(value)) {
    if (!isObject(tool))
      throw invalidOption('tools', 'an AI SDK tool (an object)', tool, { label: `tools.${name}` });
  }
  return value as ToolSet;
}

function resolveSessionStore(value: unknown): AiSdkSessionStore | null {
  if (value === undefined) return memorySessionStore();
  if (value === null) return null;
  if (!isObject(value) || typeof value.get !== 'function' || typeof value.save !== 'function') {
    throw invalidOption(
      'sessionStore',
      'null or an @acpkit/sessions store (memorySessionStore(), fileSessionStore(), sqliteSessionStore(), postgresSessionStore())',
      value,
    );
  }
  return value as unknown as AiSdkSessionStore;
}

/**
 * Checks every option and applies the defaults.
 *
 * @throws `OptionError` (`@acpkit/errors`, `INVALID_OPTION`) naming the first bad option in its `option` field.
 */
export function resolveAgentOptions(options: AiSdkAgentOptions): ResolvedAgentOptions {
  if (!isObject(options))
    throw invalidOption('options', 'an object', options, { label: 'createAiSdkAgent options' });
  const config = resolveConfig(options.models, options.defaultModel, options.configOptions);
  const model =
    options.model === undefined && config.defaultModelId !== undefined
      ? (config.models.get(config.defaultModelId) as AiSdkModelChoice).model
      : options.model;
  if (!(isObject(model) || (typeof model === 'string' && model !== ''))) {
    throw invalidOption('model', 'an AI SDK language model (or a gateway model id), or `models`', model);
  }
  const modelInputs = options.modelInputs;
  if (modelInputs !== undefined && !isObject(modelInputs)) {
    throw invalidOption('modelInputs', 'an object such as { image: true }', modelInputs);
  }
  const callSettings = options.callSettings;
  if (callSettings !== undefined && !isObject(callSettings)) {
    throw invalidOption('callSettings', 'an object of streamText settings', callSettings);
  }
  if (options.describeToolCall !== undefined && typeof options.describeToolCall !== 'function') {
    throw invalidOption('describeToolCall', 'a function', options.describeToolCall);
  }
  if (options.sessionTitle !== undefined && typeof options.sessionTitle !== 'function') {
    throw invalidOption('sessionTitle', 'a function', options.sessionTitle);
  }
  return {
    name: requiredString('name', options.name),
    version: requiredString('version', options.version),
    title: optionalString('title', options.title),
    model,
    system: optionalString('system', options.system),
    tools: resolveTools(options.tools),
    maxSteps: positiveInteger('maxSteps', options.maxSteps, DEFAULT_MAX_STEPS),
    modelInputs: {
      image: optionalBoolean('modelInputs', modelInputs?.image, { label: 'modelInputs.image' }),
      audio: optionalBoolean('modelInputs', modelInputs?.audio, { label: 'modelInputs.audio' }),
    },
    sessionStore: resolveSessionStore(options.sessionStore),
    sessionTitle: options.sessionTitle,
    describeToolCall: options.describeToolCall,
    callSettings: callSettings ?? {},
    maxOpenSessions: positiveInteger('maxOpenSessions', options.maxOpenSessions, DEFAULT_MAX_OPEN_SESSIONS),
    config,
    modes: resolveModes(options.modes),
    commands: resolveCommands(options.commands),
    usage: resolveUsage('usage', options.usage),
    mcp: resolveMcp(options.mcp),
  };
}
