// The options of createLangChainAgent, and their one check: every option is validated here, once, with one error
// (INVALID_OPTION naming the option, what is allowed and what was given). The rest of the package sees only
// ResolvedAgentOptions.
import {
  invalidOption,
  isPlainObject as isObject,
  optionalBoolean,
  optionalFunction,
  optionalString,
  positiveInteger,
  requiredString,
} from '@acpkit/errors';
import { DEFAULT_MAX_OPEN_SESSIONS } from '@acpkit/sessions';
import type { ToolKind } from '@agentclientprotocol/sdk';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import {
  type CompiledGraphLike,
  checkpointerOf,
  compiledGraphOf,
  isLangGraphAgent,
  type LangGraphAgent,
  toolSchemasOf,
} from './graph.js';

/** A session's graph and its tools' argument schemas. */
export interface SessionGraph {
  readonly graph: CompiledGraphLike;
  readonly toolSchemas: ReadonlyMap<string, unknown>;
}

/**
 * What a per-session agent factory gets (see {@link LangChainAgentOptions.agent}).
 *
 * @example
 * ```ts
 * import type { LangChainSessionContext } from '@acpkit/langchain';
 *
 * const describe = (session: LangChainSessionContext) => `${session.sessionId} in ${session.cwd}`;
 * ```
 */
export interface LangChainSessionContext {
  readonly sessionId: string;
  /** The working directory the client gave in `session/new` / `session/load` / `session/resume`. */
  readonly cwd: string;
  /** The tools of the editor's MCP servers (`mcpServers` of the session request), loaded with `@langchain/mcp-adapters`. */
  readonly mcpTools: readonly StructuredToolInterface[];
}

/**
 * A tool call as {@link LangChainAgentOptions.describeToolCall} sees it.
 *
 * @example
 * ```ts
 * import type { ToolCallInfo } from '@acpkit/langchain';
 *
 * const title = (call: ToolCallInfo) => `${call.toolName}(${JSON.stringify(call.input)})`;
 * ```
 */
export interface ToolCallInfo {
  readonly toolName: string;
  /** The arguments the model gave (`undefined` while they are still streaming). */
  readonly input: unknown;
}

/**
 * How a tool call is shown to the client (ACP `tool_call.title` and `kind`).
 *
 * @example
 * ```ts
 * import type { ToolCallDisplay } from '@acpkit/langchain';
 *
 * const display: ToolCallDisplay = { title: 'Deploy to production', kind: 'execute' };
 * ```
 */
export interface ToolCallDisplay {
  readonly title?: string | undefined;
  readonly kind?: ToolKind | undefined;
}

/**
 * What the model takes besides text; it sets the `promptCapabilities` the agent advertises in `initialize`.
 *
 * @example
 * ```ts
 * import type { ModelInputs } from '@acpkit/langchain';
 *
 * const inputs: ModelInputs = { image: true }; // a vision model
 * ```
 */
export interface ModelInputs {
  /** Images reach the model as LangChain `image` content blocks. Default `false`. */
  readonly image?: boolean | undefined;
  /** Audio reaches the model as LangChain `audio` content blocks. Default `false`. */
  readonly audio?: boolean | undefined;
}

/**
 * Limits on the editor's MCP servers (`mcpServers` of `session/new`, `session/load`, `session/resume`).
 *
 * @example
 * ```ts
 * import type { McpOptions } from '@acpkit/langchain';
 *
 * const mcp: McpOptions = { maxServers: 4, connectTimeoutMs: 5_000 };
 * ```
 */
export interface McpOptions {
  /** At most this many servers per session; more is refused with -32602. Default 10. */
  readonly maxServers?: number | undefined;
  /** How long connecting and listing the tools of all servers may take. Default 15 000 ms. */
  readonly connectTimeoutMs?: number | undefined;
}

/**
 * Options of {@link createLangChainAgent}.
 *
 * @example
 * ```ts
 * import type { LangChainAgentOptions } from '@acpkit/langchain';
 * import { createAgent } from 'langchain';
 *
 * declare const model: Parameters<typeof createAgent>[0]['model'];
 * const options: LangChainAgentOptions = {
 *   name: 'release-helper',
 *   version: '1.0.0',
 *   agent: createAgent({ model, tools: [] }),
 * };
 * ```
 */
export interface LangChainAgentOptions {
  /** `agentInfo.name` in the `initialize` response. */
  readonly name: string;
  /** `agentInfo.version` in the `initialize` response. */
  readonly version: string;
  /** `agentInfo.title` in the `initialize` response (a display name). */
  readonly title?: string | undefined;
  /**
   * The agent: a `createAgent(...)` or `createDeepAgent(...)` result, any compiled LangGraph graph whose state has
   * `messages`, or a factory called once per session (with the editor's MCP tools) that returns one. A graph
   * without a checkpointer gets {@link LangChainAgentOptions.checkpointer}.
   */
  readonly agent:
    | LangGraphAgent
    | ((session: LangChainSessionContext) => LangGraphAgent | Promise<LangGraphAgent>);
  /**
   * Where sessions live (LangGraph's `thread_id` is the ACP session id). Default: the graph's own checkpointer, else
   * a new `MemorySaver` (sessions last as long as the process). Pass one made at module level (a `SqliteSaver`, a
   * `PostgresSaver`) to share sessions between connections and keep them across restarts.
   */
  readonly checkpointer?: BaseCheckpointSaver | undefined;
  /** LangGraph's `recursionLimit` per run; reaching it ends the turn with `max_turn_requests`. Default: LangGraph's. */
  readonly recursionLimit?: number | undefined;
  /** The runtime `context` passed to every run (`createAgent`'s `contextSchema`). */
  readonly context?: ((session: LangChainSessionContext) => unknown) | undefined;
  /** What the model takes besides text (sets `promptCapabilities`). Default: text only. */
  readonly modelInputs?: ModelInputs | undefined;
  /** Title and kind of a tool call as the client shows it. Default: the tool's name; kind `other`. */
  readonly describeToolCall?: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;
  /**
   * Sessions the app keeps open at once; opening one more closes the least recently used idle one (its thread stays
   * in the checkpointer). Default 100.
   */
  readonly maxOpenSessions?: number | undefined;
  /** Limits on the editor's MCP servers; `false` ignores them (and `mcpCapabilities` is not advertised). */
  readonly mcp?: McpOptions | false | undefined;
}

/** The options after their check, with every default applied. */
export interface ResolvedAgentOptions {
  readonly name: string;
  readonly version: string;
  readonly title: string | undefined;
  /** The graph for a session (the one graph, or the factory's). */
  readonly graphFor: (session: LangChainSessionContext) => Promise<SessionGraph>;
  /** True when `agent` is a factory (only a factory can use the editor's MCP tools). */
  readonly perSessionGraphs: boolean;
  readonly checkpointer: BaseCheckpointSaver;
  readonly recursionLimit: number | undefined;
  readonly context: ((session: LangChainSessionContext) => unknown) | undefined;
  readonly modelInputs: { readonly image: boolean; readonly audio: boolean };
  readonly describeToolCall: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;
  readonly maxOpenSessions: number;
  readonly mcp: { readonly maxServers: number; readonly connectTimeoutMs: number } | false;
}

/** The default of {@link McpOptions.maxServers}. */
export const DEFAULT_MAX_MCP_SERVERS = 10;
/** The default of {@link McpOptions.connectTimeoutMs}. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 15_000;

function isCheckpointer(value: unknown): value is BaseCheckpointSaver {
  return isObject(value) && typeof value.getTuple === 'function' && typeof value.put === 'function';
}

/** A factory's graph, given the shared checkpointer when it has none (another one would split the sessions). */
function withCheckpointer(agent: unknown, checkpointer: BaseCheckpointSaver): CompiledGraphLike {
  const graph = compiledGraphOf(agent, 'the graph the agent factory returned');
  const own = checkpointerOf(graph);
  if (own !== checkpointer) graph.checkpointer = checkpointer;
  return graph;
}

function resolveMcp(value: unknown): ResolvedAgentOptions['mcp'] {
  if (value === false) return false;
  if (value !== undefined && !isObject(value))
    throw invalidOption('mcp', 'false or { maxServers, connectTimeoutMs }', value);
  return {
    maxServers: positiveInteger('mcp', value?.maxServers, DEFAULT_MAX_MCP_SERVERS, {
      label: 'mcp.maxServers',
    }),
    connectTimeoutMs: positiveInteger('mcp', value?.connectTimeoutMs, DEFAULT_MCP_CONNECT_TIMEOUT_MS, {
      label: 'mcp.connectTimeoutMs',
    }),
  };
}

/**
 * Checks every option and applies the defaults.
 *
 * @throws `OptionError` (`@acpkit/errors`, `INVALID_OPTION`) naming the first bad option in its `option` field; `INVALID_GRAPH` for a graph that is
 * not compiled.
 */
export function resolveAgentOptions(options: LangChainAgentOptions): ResolvedAgentOptions {
  if (!isObject(options))
    throw invalidOption('options', 'an object', options, { label: 'createLangChainAgent options' });
  const name = requiredString('name', options.name);
  const version = requiredString('version', options.version);
  const modelInputs = options.modelInputs;
  if (modelInputs !== undefined && !isObject(modelInputs)) {
    throw invalidOption('modelInputs', 'an object such as { image: true }', modelInputs);
  }
  if (options.checkpointer !== undefined && !isCheckpointer(options.checkpointer)) {
    throw invalidOption(
      'checkpointer',
      'a LangGraph checkpoint saver (MemorySaver, SqliteSaver, …)',
      options.checkpointer,
    );
  }
  const agent = options.agent;
  let graphFor: ResolvedAgentOptions['graphFor'];
  let checkpointer: BaseCheckpointSaver;
  if (typeof agent === 'function') {
    const factory = agent;
    const shared = options.checkpointer ?? new MemorySaver();
    checkpointer = shared;
    graphFor = async (session) => {
      const agent = await factory(session);
      return { graph: withCheckpointer(agent, shared), toolSchemas: toolSchemasOf(agent) };
    };
  } else {
    if (!isLangGraphAgent(agent)) {
      throw invalidOption(
        'agent',
        'a createAgent(...) result, a compiled LangGraph graph or a factory',
        agent,
      );
    }
    const graph =
      options.checkpointer === undefined
        ? compiledGraphOf(agent, 'agent')
        : withCheckpointer(agent, options.checkpointer);
    checkpointer = checkpointerOf(graph) as BaseCheckpointSaver;
    const sessionGraph = { graph, toolSchemas: toolSchemasOf(agent) };
    graphFor = async () => sessionGraph;
  }
  if (options.recursionLimit !== undefined) positiveInteger('recursionLimit', options.recursionLimit, 0);
  return {
    name,
    version,
    title: optionalString('title', options.title),
    graphFor,
    perSessionGraphs: typeof agent === 'function',
    checkpointer,
    recursionLimit: options.recursionLimit,
    context: optionalFunction('context', options.context),
    modelInputs: {
      image: optionalBoolean('modelInputs', modelInputs?.image, { label: 'modelInputs.image' }),
      audio: optionalBoolean('modelInputs', modelInputs?.audio, { label: 'modelInputs.audio' }),
    },
    describeToolCall: optionalFunction('describeToolCall', options.describeToolCall),
    maxOpenSessions: positiveInteger('maxOpenSessions', options.maxOpenSessions, DEFAULT_MAX_OPEN_SESSIONS),
    mcp: resolveMcp(options.mcp),
  };
}
