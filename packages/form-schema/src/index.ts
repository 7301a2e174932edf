/**
 * Public surface of @acpkit/form-schema. Every export here is public API: named exports only.
 */

export {
  compilePattern,
  MAX_PATTERN_INPUT_LENGTH,
  MAX_PATTERN_LENGTH,
  NOT_A_DECIMAL_NUMBER,
  type ParsedInput,
  parseDecimal,
  parseFieldInput,
  validateFieldValue,
} from './answers/field-validation.js';
export {
  type BooleanField,
  type ChoiceOption,
  type FieldValue,
  type FormField,
  type FormModel,
  fieldDefault,
  isSingleChoiceForm,
  type MultiChoiceField,
  type NumberField,
  readForm,
  type SingleChoiceField,
  type TextField,
  type UnsupportedField,
} from './answers/form-model.js';
export {
  type ChoiceFieldSchema,
  type ChoicesFieldOptions,
  type ChoicesFieldSchema,
  choiceField,
  choicesField,
} from './choice-field.js';
export {
  type CompiledForm,
  compileForm,
  type FormBooleanProperty,
  type FormIntegerProperty,
  type FormMultiSelectProperty,
  type FormNumberProperty,
  type FormPropertySchema,
  type FormRequestedSchema,
  type FormStringFormat,
  type FormStringProperty,
} from './compile-form.js';
export { FormSchemaError, FormSchemaErrorCode } from './errors.js';
export {
  type CompileFormElicitationInput,
  compileFormElicitation,
  type FormElicitationParams,
  type ParsedFormResponse,
  parseFormResponse,
} from './form-elicitation.js';
export type { FieldRefusal, FormObjectSchema, FormSchemaCheck, FormValue } from './form-types.js';
