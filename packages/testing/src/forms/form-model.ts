// The form model now lives in @acpkit/form-schema, shared with the terminal and web clients; re-exported here.
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
} from '@acpkit/form-schema';
