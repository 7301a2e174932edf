/**
 * Public surface of @acpkit/langchain: expose a LangChain.js agent (`createAgent`), a DeepAgents agent or any
 * compiled LangGraph.js graph over ACP. Every export here is public API: named exports only.
 */

// The one option error of every ACP Kit package (INVALID_OPTION), re-exported so a user catches it from here.
export { OptionError } from '@acpkit/errors';
export { createLangChainAgent } from './create-agent.js';
export { LangChainAgentError, LangChainAgentErrorCode } from './errors.js';
export type { LangGraphAgent } from './graph.js';
export type {
  LangChainAgentOptions,
  LangChainSessionContext,
  McpOptions,
  ModelInputs,
  ToolCallDisplay,
  ToolCallInfo,
} from './options.js';
export type { QuestionResult } from './turn/interrupts.js';
