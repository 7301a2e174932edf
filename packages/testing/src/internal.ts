/**
 * `@acpkit/testing/internal`: the code `@acpkit/cli` (`acpkit client`) shares with the test client, so the terminal
 * client and the tests read forms and apply answers by one set of rules. Not public API: it may change in any
 * release without notice; use the package's main entry point instead.
 */

export { agentErrorDetail } from './agent-error.js';
export type { AgentExit } from './agent-process.js';
export { AgentProcess } from './agent-process.js';
export type { AnswerSource, AutomaticFieldAnswer, AutomaticFormAnswer } from './forms/automatic-answers.js';
export {
  answerFormAutomatically,
  automaticFieldAnswer,
  choosePermissionAutomatically,
  describeValue,
} from './forms/automatic-answers.js';
export type { ParsedInput } from './forms/field-validation.js';
export {
  compilePattern,
  MAX_PATTERN_INPUT_LENGTH,
  MAX_PATTERN_LENGTH,
  parseFieldInput,
  validateFieldValue,
} from './forms/field-validation.js';
export type {
  BooleanField,
  ChoiceOption,
  FieldValue,
  FormField,
  FormModel,
  MultiChoiceField,
  NumberField,
  SingleChoiceField,
  TextField,
  UnsupportedField,
} from './forms/form-model.js';
export { fieldDefault, isSingleChoiceForm, readForm } from './forms/form-model.js';
export type { FormElicitationRequest, FormScriptSource } from './forms/scripted-answers.js';
export { FormScriptQueue, formScriptSource, isFormRequest } from './forms/scripted-answers.js';
export type { NonJsonLine } from './json-line-filter.js';
export { JsonLineFilter } from './json-line-filter.js';
export type { AwaitInitializeOptions } from './non-acp-guard.js';
export { awaitInitialize, NON_ACP_GRACE_MS, quoteCommand } from './non-acp-guard.js';
