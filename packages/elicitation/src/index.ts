/**
 * Public surface of @acpkit/elicitation. Every export here is public API: named exports only.
 */
export {
  AcpKitError,
  ChoiceValidationError,
  ChoiceValidationErrorCode,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
} from '@acpkit/choice-schema';
export {
  AcpSessions,
  acpSessions,
  type CancelContextLike,
  type InitializeContextLike,
  type SessionContextLike,
} from './acp-sessions.js';
export {
  ElicitationConnectionClosedError,
  ElicitationErrorCode,
  ElicitationScopeError,
  ElicitationUnsupportedError,
  InvalidElicitationFallbackError,
} from './errors.js';
export type { ChoiceElicitationFallback, ChoiceValueEquals } from './fallback.js';
export {
  ChoiceElicitationAccepted,
  ChoiceElicitationCancelled,
  ChoiceElicitationDeclined,
  type ChoiceElicitationResult,
  type ChoiceElicitationSource,
  type ElicitationChoice,
  isChoiceElicitationResult,
} from './results.js';
export {
  AcpSessionContext,
  type AcpSessionContextOptions,
  type AskChoiceOptions,
  type CreateElicitationOptions,
  type ElicitationClient,
  type ElicitationMode,
  type ElicitationModeSelector,
} from './session-context.js';
