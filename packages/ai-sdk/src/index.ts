/**
 * Public surface of @acpkit/ai-sdk: expose a Vercel AI SDK agent (the `ai` package, 6.x or 7.x) over ACP. Every
 * export here is public API: named exports only.
 */
export { createAiSdkAgent } from './create-agent.js';
export { AiSdkAgentError, AiSdkAgentErrorCode, AiSdkOptionError } from './errors.js';
export type {
  AiSdkAgentOptions,
  AiSdkCallSettings,
  ModelInputs,
  ToolCallDisplay,
  ToolCallInfo,
} from './options.js';
export type {
  AiSdkSessionEntry,
  AiSdkSessionState,
  AiSdkSessionStore,
  StoredAiSdkSession,
} from './session-store.js';
export { type AskUserInput, type AskUserToolOptions, askUserTool } from './tools/ask-user-tool.js';
export { type FormToolInput, type FormToolOptions, formTool } from './tools/form-tool.js';
export type { QuestionToolResult } from './tools/question-results.js';
