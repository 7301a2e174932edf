/**
 * Public surface of @acpkit/choice-schema. Every export here is public API: named exports only.
 */
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
  AcpKitError,
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
