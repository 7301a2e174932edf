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
  validateChoiceQuestion,
} from './compile-choice.js';
export {
  AcpKitError,
  ChoiceValidationError,
  ChoiceValidationErrorCode,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
} from './errors.js';
export { choiceIndexOf, type ParsedChoiceResponse, parseChoiceResponse } from './parse-choice.js';
