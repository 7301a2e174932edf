/**
 * Public surface of @acpkit/ai-sdk: expose a Vercel AI SDK agent (the `ai` package, 6.x or 7.x) over ACP. Every
 * export here is public API: named exports only.
 */

// The one option error of every ACP Kit package (INVALID_OPTION), re-exported so a user catches it from here.
export { OptionError } from '@acpkit/errors';
export {
  type ClientFileTools,
  type ClientFileToolsOptions,
  clientFileTools,
} from './client-tools/file-tools.js';
export {
  type ClientTerminalToolOptions,
  clientTerminalTool,
  type TerminalToolResult,
} from './client-tools/terminal-tool.js';
export type { AiSdkCommand, AiSdkCommandContext } from './commands/slash-commands.js';
export type { AiSdkCallSettings, AiSdkConfigOption, AiSdkModelChoice } from './config/config-options.js';
export { createAiSdkAgent } from './create-agent.js';
export { AiSdkAgentError, AiSdkAgentErrorCode } from './errors.js';
export type { AiSdkMcpServers, McpSessionConnection } from './mcp/mcp-option.js';
export type { AiSdkMode } from './modes/modes.js';
export type {
  AiSdkAgentOptions,
  ModelInputs,
  ToolCallDisplay,
  ToolCallInfo,
} from './options.js';
export { type PlanToolInput, type PlanToolOptions, planTool } from './plan/plan-tool.js';
export {
  kindFromToolName,
  locationsFromInput,
  shortArguments,
  type ToolCallDisplaySpec,
  withToolCallDisplay,
} from './projection/tool-projection.js';
export type { AiSdkSessionChoices, ConfigValue } from './session-state/session-state.js';
export type {
  AiSdkSessionEntry,
  AiSdkSessionState,
  AiSdkSessionStore,
  StoredAiSdkSession,
} from './session-store.js';
export { type AskUserInput, type AskUserToolOptions, askUserTool } from './tools/ask-user-tool.js';
export { type FormToolInput, type FormToolOptions, formTool } from './tools/form-tool.js';
export type { QuestionToolResult } from './tools/question-results.js';
export type { UsageOptions } from './usage/usage-options.js';
