// The errors @acpkit/langchain throws itself: one class, LangChainAgentError, on the one ACP Kit error root
// (`@acpkit/errors`). Wire errors (a failed prompt) stay the SDK's RequestError; see turn/run-errors.ts.
import { AcpKitError, brandErrorClass, describeRejectedValue } from '@acpkit/errors';

/**
 * Stable codes of {@link LangChainAgentError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * import { LangChainAgentErrorCode } from '@acpkit/langchain';
 *
 * LangChainAgentErrorCode.InvalidOption; // 'INVALID_OPTION'
 * ```
 */
export const LangChainAgentErrorCode = {
  /** An option of `createLangChainAgent` is missing or out of range. */
  InvalidOption: 'INVALID_OPTION',
  /** The agent factory returned something that is not a LangChain agent or a compiled LangGraph graph. */
  InvalidGraph: 'INVALID_GRAPH',
  /** The editor sent MCP servers but `@langchain/mcp-adapters` (an optional peer) is not installed. */
  McpAdaptersMissing: 'MCP_ADAPTERS_MISSING',
} as const;
/** One of the {@link LangChainAgentErrorCode} values. */
export type LangChainAgentErrorCode = (typeof LangChainAgentErrorCode)[keyof typeof LangChainAgentErrorCode];

/**
 * What `@acpkit/langchain` throws when it is used wrongly: a bad option (`INVALID_OPTION`, thrown by
 * `createLangChainAgent` before anything runs) or a factory that returned no graph (`INVALID_GRAPH`). Errors of a
 * prompt turn reach the client as JSON-RPC errors instead (the SDK's `RequestError`).
 *
 * @example
 * ```ts
 * import { createLangChainAgent, LangChainAgentError } from '@acpkit/langchain';
 *
 * try {
 *   createLangChainAgent({ name: 'helper', version: '1.0.0', agent: undefined as never });
 * } catch (error) {
 *   if (LangChainAgentError.isInstance(error)) console.error(error.code, error.message); // INVALID_OPTION …
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

/** The one error every option check throws: names the option, what is allowed and what was given. */
export function invalidOption(option: string, allowed: string, value: unknown): LangChainAgentError {
  return new LangChainAgentError(
    LangChainAgentErrorCode.InvalidOption,
    `${option} must be ${allowed}, got ${describeRejectedValue(value)}.`,
  );
}
