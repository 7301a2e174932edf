// The errors @acpkit/langchain throws itself: LangChainAgentError, on the one ACP Kit error root (`@acpkit/errors`);
// a bad option is @acpkit/errors' OptionError, as in every package. Wire errors (a failed prompt) stay the SDK's RequestError; see turn/run-errors.ts.
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Stable codes of {@link LangChainAgentError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * import { LangChainAgentErrorCode } from '@acpkit/langchain';
 *
 * LangChainAgentErrorCode.InvalidGraph; // 'INVALID_GRAPH'
 * ```
 */
export const LangChainAgentErrorCode = {
  /** The agent factory returned something that is not a LangChain agent or a compiled LangGraph graph. */
  InvalidGraph: 'INVALID_GRAPH',
  /** The editor sent MCP servers but `@langchain/mcp-adapters` (an optional peer) is not installed. */
  McpAdaptersMissing: 'MCP_ADAPTERS_MISSING',
} as const;
/** One of the {@link LangChainAgentErrorCode} values. */
export type LangChainAgentErrorCode = (typeof LangChainAgentErrorCode)[keyof typeof LangChainAgentErrorCode];

/**
 * What `@acpkit/langchain` throws when it is used wrongly: a factory that returned no graph (`INVALID_GRAPH`), MCP
 * servers without `@langchain/mcp-adapters` (`MCP_ADAPTERS_MISSING`). A bad option is `@acpkit/errors`'
 * `OptionError` (`INVALID_OPTION`, thrown by `createLangChainAgent` before anything runs). Errors of a
 * prompt turn reach the client as JSON-RPC errors instead (the SDK's `RequestError`).
 *
 * @example
 * ```ts
 * import { LangChainAgentError } from '@acpkit/langchain';
 *
 * function explain(error: unknown): string | undefined {
 *   if (LangChainAgentError.isInstance(error) && error.code === 'INVALID_GRAPH') return 'return a compiled graph';
 *   return undefined;
 * }
 * ```
 */
export class LangChainAgentError extends AcpKitError<LangChainAgentErrorCode> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { LangChainAgentError } from '@acpkit/langchain';
   *
   * LangChainAgentError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(LangChainAgentError, 'acpkit.error.langchain-agent');
  override readonly name: string = 'LangChainAgentError';
}
