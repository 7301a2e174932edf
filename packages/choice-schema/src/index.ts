/**
 * Public surface of @acpkit/choice-schema. Every export here is public API: named exports only.
 */

// The root of every ACP Kit error, re-exported where elicitation users already import it.
export { AcpKitError } from '@acpkit/errors';
export {
  CHOICE_DESCRIPTION_META_KEY,
  CHOICE_PROPERTY,
  CHOICE_PROPERTY_TITLE,
  type ChoiceDefinition,
  type ChoiceElicitationParams,
  type ChoiceEnumOption,
  type ChoiceRequestedSchema,
  type CompileChoiceElicitationInput,
  choiceToken,
  compileChoiceElicitation,
  compileChoiceOptions,
  type ElicitationChoice,
  type ExactChoice,
  validateChoiceQuestion,
  validateChoices,
  validateQuestion,
} from './compile-choice.js';
export {
  ChoiceValidationError,
  ChoiceValidationErrorCode,
  type ElicitationContentIssue,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
} from './errors.js';
export {
  choiceIndexOf,
  type ElicitationAction,
  type ParsedChoiceResponse,
  parseChoiceResponse,
  parseElicitationAction,
} from './parse-choice.js';
