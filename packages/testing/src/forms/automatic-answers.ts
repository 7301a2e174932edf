import type { PermissionOption } from '@agentclientprotocol/sdk';
import { validateFieldValue } from './field-validation.js';
import {
  type ChoiceOption,
  type FieldValue,
  type FormField,
  type FormModel,
  fieldDefault,
} from './form-model.js';

/** How an automatic answer for one field was chosen (printed so scripts can see what was answered). */
export type AnswerSource = 'default' | 'first option' | 'first options' | 'no' | 'left empty';

/** One field of an automatic answer. */
export interface AutomaticFieldAnswer {
  readonly field: FormField;
  readonly value: FieldValue | undefined;
  readonly source: AnswerSource;
}

/** The automatic answer to a whole form: accept with content, or decline with the reason. */
export type AutomaticFormAnswer =
  | {
      readonly action: 'accept';
      readonly content: Record<string, FieldValue>;
      readonly answers: readonly AutomaticFieldAnswer[];
    }
  | { readonly action: 'decline'; readonly reason: string };

/**
 * The answer `--yes` gives one field: its default, else (choices) the first option(s), else `false` for a required
 * boolean, else left empty; a string says why there is none (a required field without a default).
 *
 * @example
 * ```ts
 * automaticFieldAnswer(readForm({ properties: { n: { type: 'integer', default: 2 } } }).fields[0]!); // value 2, source 'default'
 * ```
 */
export function automaticFieldAnswer(field: FormField): AutomaticFieldAnswer | string {
  const defaultValue = fieldDefault(field);
  if (defaultValue !== undefined) return { field, value: defaultValue, source: 'default' };
  switch (field.kind) {
    case 'single-choice': {
      const first = field.options[0];
      if (first === undefined) return `${field.label} offers no options`;
      return { field, value: first.value, source: 'first option' };
    }
    case 'multi-choice': {
      const count = Math.max(field.minItems ?? 0, field.required ? 1 : 0);
      if (count === 0) return { field, value: [], source: 'left empty' };
      const selected = field.options.slice(0, count).map((option) => option.value);
      return { field, value: selected, source: count === 1 ? 'first option' : 'first options' };
    }
    case 'boolean':
      return field.required
        ? { field, value: false, source: 'no' }
        : { field, value: undefined, source: 'left empty' };
    case 'text':
    case 'number':
      if (field.required) return `${field.label} is required and has no default`;
      return { field, value: undefined, source: 'left empty' };
    case 'unsupported':
      if (field.required) return `${field.label} has a type this client cannot show (${field.type})`;
      return { field, value: undefined, source: 'left empty' };
  }
}

/**
 * Answers a form without asking anyone, as `--yes` and non-TTY runs do: each field takes its schema default, a choice
 * without one takes its first option (multi-select: the first `minItems`, at least one when required), a required
 * boolean without a default is `false`, and optional fields without a default are left out. A required field that
 * still has no valid value makes the whole answer a decline, so scripts never hang and never send invalid content.
 *
 * @example
 * ```ts
 * const answer = answerFormAutomatically(readForm(request.requestedSchema));
 * if (answer.action === 'accept') console.log(answer.content);
 * ```
 */
export function answerFormAutomatically(model: FormModel): AutomaticFormAnswer {
  const answers: AutomaticFieldAnswer[] = [];
  const content: Record<string, FieldValue> = {};
  for (const field of model.fields) {
    const answer = automaticFieldAnswer(field);
    if (typeof answer === 'string') return { action: 'decline', reason: answer };
    const problem = validateFieldValue(field, answer.value);
    if (problem !== undefined)
      return { action: 'decline', reason: `the default for ${field.label} is invalid: ${problem}` };
    answers.push(answer);
    if (answer.value !== undefined) content[field.name] = answer.value;
  }
  return { action: 'accept', content, answers };
}

/**
 * The permission option `--yes` picks: the first "allow once", else the first "allow always", else the first offered.
 *
 * @example
 * ```ts
 * choosePermissionAutomatically([{ optionId: 'no', name: 'Reject', kind: 'reject_once' }, { optionId: 'yes', name: 'Allow', kind: 'allow_once' }]);
 * // the 'yes' option
 * ```
 */
export function choosePermissionAutomatically(
  options: readonly PermissionOption[],
): PermissionOption | undefined {
  return (
    options.find((option) => option.kind === 'allow_once') ??
    options.find((option) => option.kind === 'allow_always') ??
    options[0]
  );
}

/** The label a person reads for a choice token (the token itself when no option has it). */
function optionLabel(field: { readonly options: readonly ChoiceOption[] }, value: string): string {
  return field.options.find((candidate) => candidate.value === value)?.label ?? value;
}

/**
 * Renders a field value for a person: choices by their labels (never the opaque tokens the agent sent), lists
 * joined, booleans as yes/no.
 *
 * @example
 * ```ts
 * describeValue(choiceField, 'choice_1'); // 'Production'
 * ```
 */
export function describeValue(field: FormField, value: FieldValue | undefined): string {
  if (value === undefined) return '(left empty)';
  if (field.kind === 'single-choice' && typeof value === 'string') return optionLabel(field, value);
  if (field.kind === 'multi-choice' && Array.isArray(value)) {
    return value.length === 0 ? '(none)' : value.map((item) => optionLabel(field, item)).join(', ');
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}
