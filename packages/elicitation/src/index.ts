/**
 * Public surface of @acpkit/elicitation. Every export here is public API: named exports only.
 */
// The root of every ACP Kit error, re-exported where elicitation users already import it.

export {
  ChoiceValidationError,
  ChoiceValidationErrorCode,
  type ElicitationContentIssue,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
} from '@acpkit/choice-schema';
export { AcpKitError } from '@acpkit/errors';
export { choiceField, choicesField, FormSchemaError, FormSchemaErrorCode } from '@acpkit/form-schema';
export {
  AcpSessions,
  acpSessions,
  type CancelContextLike,
  type InitializeContextLike,
  type PromptHandlerResult,
  type SessionContextLike,
} from './acp-sessions.js';
export { initializeResponse, toolOutputText, toolTextContent } from './agent-turn-content.js';
export type {
  AskChoiceOptions,
  AskChoicesOptions,
  AskConfirmOptions,
  AskFieldText,
  AskFormOptions,
  AskOptions,
  AskTextOptions,
} from './ask-options.js';
export type {
  ElicitationFormProperty,
  ElicitationFormSchema,
  ElicitationMode,
  ElicitationScope,
  FormElicitationMode,
  UrlElicitationMode,
} from './elicitation-mode.js';
export {
  ClientCapabilitiesNotRecordedError,
  ElicitationConnectionClosedError,
  ElicitationErrorCode,
  ElicitationScopeError,
  ElicitationUnsupportedError,
  type ElicitationUnsupportedErrorCode,
  InvalidElicitationFallbackError,
} from './errors.js';
export type { ChoiceValueEquals, ElicitationFallback } from './fallback.js';
export { type PromptPart, promptParts } from './prompt-parts.js';
export {
  askForOutcome,
  type QuestionOutcome,
  type QuestionOutcomeMessages,
} from './question-outcome.js';
export {
  ElicitationAccepted,
  ElicitationCancelled,
  type ElicitationChoice,
  ElicitationDeclined,
  type ElicitationResult,
  type ElicitationSource,
  isElicitationResult,
} from './results.js';
export {
  AcpSessionContext,
  type AcpSessionContextOptions,
  type CreateElicitationOptions,
  type ElicitationClient,
  type ElicitationModeSelector,
} from './session-context.js';
export {
  requestToolPermission,
  type ToolPermissionOutcome,
  toolPermissionOptions,
} from './tool-permission.js';
