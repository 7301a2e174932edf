// What this package needs of a LangGraph graph, duck-typed so a `createAgent(...)` result (a ReactAgent: its compiled
// graph is `.graph`), a DeepAgents agent and any compiled StateGraph all fit, and the checkpointer the sessions live
// in: the graph's own, or a MemorySaver attached when it has none (as LangGraph's own servers do).
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { LangChainAgentError, LangChainAgentErrorCode } from './errors.js';

/** The state snapshot `getState` returns, as far as this package reads it. */
export interface GraphStateSnapshot {
  readonly values: unknown;
  readonly tasks?: ReadonlyArray<{ readonly interrupts?: ReadonlyArray<{ id?: string; value?: unknown }> }>;
}

/** A compiled LangGraph graph (Pregel), as far as this package uses it. */
export interface CompiledGraphLike {
  stream(input: unknown, config: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: { configurable: Record<string, unknown> }): Promise<GraphStateSnapshot>;
  checkpointer?: BaseCheckpointSaver | boolean | undefined;
}

/**
 * What `createLangChainAgent` accepts as `agent`: a `createAgent(...)` / `createDeepAgent(...)` result or any
 * compiled LangGraph graph whose state has `messages`.
 *
 * @example
 * ```ts
 * import type { LangGraphAgent } from '@acpkit/langchain';
 * import { createAgent } from 'langchain';
 *
 * declare const model: Parameters<typeof createAgent>[0]['model'];
 * const agent: LangGraphAgent = createAgent({ model, tools: [] });
 * ```
 */
export type LangGraphAgent = CompiledGraphLike | { readonly graph: CompiledGraphLike };

function isCompiledGraph(value: unknown): value is CompiledGraphLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as CompiledGraphLike).stream === 'function' &&
    typeof (value as CompiledGraphLike).getState === 'function'
  );
}

/** True for anything {@link compiledGraphOf} accepts. */
export function isLangGraphAgent(value: unknown): value is LangGraphAgent {
  if (isCompiledGraph(value)) return true;
  return typeof value === 'object' && value !== null && isCompiledGraph((value as { graph?: unknown }).graph);
}

/**
 * The compiled graph of `agent`, with a checkpointer: a graph compiled without one gets a `MemorySaver` (sessions
 * then last as long as the process).
 *
 * @throws `LangChainAgentError` `INVALID_GRAPH` for anything else.
 */
export function compiledGraphOf(agent: unknown, where: string): CompiledGraphLike {
  const graph = isCompiledGraph((agent as { graph?: unknown } | null)?.graph)
    ? (agent as { graph: CompiledGraphLike }).graph
    : agent;
  if (!isCompiledGraph(graph)) {
    throw new LangChainAgentError(
      LangChainAgentErrorCode.InvalidGraph,
      `${where} must be a createAgent(...) result or a compiled LangGraph graph (with stream and getState); ` +
        'compile a StateGraph with .compile() first.',
    );
  }
  if (checkpointerOf(graph) === undefined) graph.checkpointer = new MemorySaver();
  return graph;
}

/** The graph's checkpointer, if it has a real one. */
export function checkpointerOf(graph: CompiledGraphLike): BaseCheckpointSaver | undefined {
  const saver = graph.checkpointer;
  return typeof saver === 'object' && saver !== null ? saver : undefined;
}

/** The argument schemas of the agent's tools by name (a `createAgent` result lists them in `options.tools`). */
export function toolSchemasOf(agent: unknown): ReadonlyMap<string, unknown> {
  const schemas = new Map<string, unknown>();
  const options = (agent as { options?: { tools?: unknown; middleware?: unknown } } | null)?.options;
  const middlewareTools = Array.isArray(options?.middleware)
    ? (options.middleware as Array<{ tools?: unknown }>).flatMap((middleware) =>
        Array.isArray(middleware?.tools) ? middleware.tools : [],
      )
    : [];
  for (const tool of [...(Array.isArray(options?.tools) ? options.tools : []), ...middlewareTools]) {
    const { name, schema } = (tool ?? {}) as { name?: unknown; schema?: unknown };
    if (typeof name === 'string' && schema !== undefined) schemas.set(name, schema);
  }
  return schemas;
}
