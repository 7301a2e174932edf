import type { CreateElicitationRequest, ElicitationSchema } from '@agentclientprotocol/sdk';
import { ScriptedAnswerError, type ScriptProblem, TestingErrorCode } from '../errors.js';
import type { AnswerSource, AutomaticFieldAnswer } from './automatic-answers.js';
import { NOT_A_DECIMAL_NUMBER, parseDecimal, validateFieldValue } from './field-validation.js';
import {
  type ChoiceOption,
  type FieldValue,
  type FormField,
  type FormModel,
  fieldDefault,
  readForm,
} from './form-model.js';

/** One scripted value: text (matched and parsed by the rules of {@link answerFormWithScript}), or typed JSON. */
export type ScriptValue = string | number | boolean | readonly string[];

/**
 * The scripted answer to one form: `'decline'`, `'cancel'`, or the values to accept it with, keyed by field
 * (property name or title). Fields the script leaves out take their defaults, as `acpkit client --yes` does.
 *
 * @example
 * ```ts
 * const scripts: FormScript[] = [{ Choice: 'Preview' }, { 'Release name': 'r-1', Channels: ['Stable', 'Beta'] }, 'decline'];
 * ```
 */
export type FormScript = 'decline' | 'cancel' | { readonly [field: string]: ScriptValue };

/** Where a value of a scripted answer came from: the script, or the automatic rules for fields it left out. */
export type ScriptedAnswerSource = 'scripted' | AnswerSource;

/** One field of a scripted answer: the field, its value (undefined = left empty), and where the value came from. */
export interface ScriptedFieldAnswer extends Omit<AutomaticFieldAnswer, 'source'> {
  readonly source: ScriptedAnswerSource;
}

/** What a script made of a form: accept with content (and how each field was answered), decline, or cancel. */
export type ScriptedFormAnswer =
  | {
      readonly action: 'accept';
      readonly content: Record<string, FieldValue>;
      readonly answers: readonly ScriptedFieldAnswer[];
    }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** The part of a form-mode `elicitation/create` request the rules read. */
export interface ScriptedForm {
  readonly message: string;
  readonly requestedSchema?: ElicitationSchema;
}

/** A form-mode `elicitation/create` request. */
export type FormElicitationRequest = Extract<CreateElicitationRequest, { mode: 'form' }>;

/**
 * True for a form-mode request (URL-mode and vendor `_x` modes are not).
 *
 * @example
 * ```ts
 * if (isFormRequest(params)) answerFormWithScript(params, { Choice: 'Preview' });
 * ```
 */
export function isFormRequest(request: CreateElicitationRequest): request is FormElicitationRequest {
  return request.mode === 'form' && 'requestedSchema' in request;
}

/** How a form is named in messages: its schema title, else the agent's question. */
function formName(form: ScriptedForm, model: FormModel): string {
  return model.title ?? form.message;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function fieldList(model: FormModel): string {
  const names = model.fields.map((field) =>
    field.label === field.name ? quote(field.name) : `${quote(field.label)} (${field.name})`,
  );
  return names.length === 0 ? 'it has no fields' : `its fields: ${names.join(', ')}`;
}

function optionList(options: readonly ChoiceOption[]): string {
  return options.map((option) => quote(option.label)).join(', ');
}

/**
 * Finds the field a script key names: a property name first, then a title. A key that is no property name but the
 * title of several fields is a problem (`AMBIGUOUS_FIELD`): answering one of them silently would be a guess.
 */
function findField(model: FormModel, key: string, formName: string): FormField | ScriptProblem | undefined {
  const byName = model.fields.find((field) => field.name === key);
  if (byName !== undefined) return byName;
  const byTitle = model.fields.filter((field) => field.label === key);
  if (byTitle.length > 1) {
    return {
      code: TestingErrorCode.AmbiguousField,
      field: key,
      message: `The form ${quote(formName)} has several fields titled ${quote(key)} (${byTitle.map((field) => field.name).join(', ')}): answer them by property name instead.`,
    };
  }
  return byTitle[0];
}

/** One error for every problem of a form: the one-line message of a single problem, else a list of them. */
function scriptDoesNotFit(form: string, problems: readonly ScriptProblem[]): ScriptedAnswerError {
  const [first] = problems as [ScriptProblem, ...ScriptProblem[]];
  const message =
    problems.length === 1
      ? first.message
      : [
          `The script does not fit the form ${quote(form)} in ${problems.length} places:`,
          ...problems.map((problem) => `- ${problem.message}`),
        ].join('\n');
  return new ScriptedAnswerError(first.code, message, {
    form,
    ...(first.field === undefined ? {} : { field: first.field }),
    problems,
  });
}

/** An option by its title first, then by its value (the token the agent sent). */
function matchOption(options: readonly ChoiceOption[], text: string): ChoiceOption | undefined {
  return options.find((option) => option.label === text) ?? options.find((option) => option.value === text);
}

const YES = new Set(['true', 'yes', 'y', 'on', '1']);
const NO = new Set(['false', 'no', 'n', 'off', '0']);

type ReadValue = { readonly value: FieldValue } | { readonly problem: string };

/** Reads one scripted value as the field's type, or says why it cannot be read. */
function readValue(field: FormField, raw: ScriptValue): ReadValue {
  const values = Array.isArray(raw) ? raw : undefined;
  switch (field.kind) {
    case 'single-choice': {
      if (values !== undefined)
        return { problem: `it takes one option, but the script gives ${values.length}` };
      if (typeof raw !== 'string') return { problem: `it takes an option title, not ${JSON.stringify(raw)}` };
      const option = matchOption(field.options, raw);
      if (option === undefined) {
        return { problem: `${quote(raw)} is not one of its options (${optionList(field.options)})` };
      }
      return { value: option.value };
    }
    case 'multi-choice': {
      const items = values ?? (typeof raw === 'string' ? [raw] : undefined);
      if (items === undefined) return { problem: `it takes option titles, not ${JSON.stringify(raw)}` };
      const selected: string[] = [];
      for (const item of items) {
        const option = matchOption(field.options, item);
        if (option === undefined) {
          return { problem: `${quote(item)} is not one of its options (${optionList(field.options)})` };
        }
        selected.push(option.value);
      }
      return { value: selected };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { value: raw };
      const text = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
      if (text !== undefined && YES.has(text)) return { value: true };
      if (text !== undefined && NO.has(text)) return { value: false };
      return { problem: `it takes yes or no (true/false), not ${JSON.stringify(raw)}` };
    }
    case 'number': {
      if (typeof raw === 'number') return { value: raw };
      const number = typeof raw === 'string' ? parseDecimal(raw) : undefined;
      if (number === undefined)
        return { problem: `it takes ${NOT_A_DECIMAL_NUMBER}, not ${JSON.stringify(raw)}` };
      return { value: number };
    }
    case 'text':
      if (typeof raw === 'string') return { value: raw };
      return { problem: `it takes text, not ${JSON.stringify(raw)}` };
    case 'unsupported':
      return { problem: `it has a type this client cannot answer (${field.type})` };
  }
}

/** What a field the script leaves out gets: its default, else nothing (a string says why that will not do). */
function scriptGapAnswer(field: FormField): AutomaticFieldAnswer | string {
  const defaultValue = fieldDefault(field);
  if (defaultValue !== undefined) return { field, value: defaultValue, source: 'default' };
  if (field.required) return `${field.label} is required and has no default`;
  return { field, value: undefined, source: 'left empty' };
}

/**
 * Answers one form from a script, by the rules `acpkit client --answer NAME=VALUE` and the test client share:
 *
 * - `'decline'` / `'cancel'` answer with that action;
 * - each script key names a field by its property name, else by its title;
 * - a value for a choice matches an option's title, then its value (the token); for a multi-select, give a list
 *   (each item matched the same way); other values are read as the field's type (`yes`/`no`/`true`/`false` for
 *   booleans, decimal numbers) and checked against the field's schema (`pattern`, `format`, bounds, counts);
 * - fields the script leaves out take their defaults; optional ones without a default are left out.
 *
 * A script that does not fit is never papered over with a guess: a key that names no field (or a title several
 * fields share), a value that does not match or validate, and a required field without a default that the script
 * leaves out (of any kind: no "first option", no "no") all throw.
 *
 * @throws {@link ScriptedAnswerError} naming the form and the field (`UNKNOWN_FIELD`, `AMBIGUOUS_FIELD`,
 * `INVALID_ANSWER`, `MISSING_ANSWER`).
 * @example
 * ```ts
 * const answer = answerFormWithScript(request, { Choice: 'Preview' });
 * // { action: 'accept', content: { choice: 'choice_0' }, answers: [...] }
 * ```
 */
export function answerFormWithScript(form: ScriptedForm, script: FormScript): ScriptedFormAnswer {
  if (script === 'decline' || script === 'cancel') return { action: script };
  const model = readForm(form.requestedSchema);
  const name = formName(form, model);
  // Every field that does not fit is reported at once: fixing a script one error per run is slow.
  const problems: ScriptProblem[] = [];
  const scripted = new Map<string, FieldValue>();
  const answered = new Set<string>();
  for (const [key, raw] of Object.entries(script)) {
    const field = findField(model, key, name);
    if (field === undefined) {
      problems.push({
        code: TestingErrorCode.UnknownField,
        field: key,
        message: `The form ${quote(name)} has no field ${quote(key)} (${fieldList(model)}).`,
      });
      continue;
    }
    if ('code' in field) {
      problems.push(field);
      continue;
    }
    if (answered.has(field.name)) {
      problems.push({
        code: TestingErrorCode.InvalidAnswer,
        field: field.name,
        message: `The script answers the field ${quote(field.label)} of the form ${quote(name)} twice (as its name and its title).`,
      });
      continue;
    }
    answered.add(field.name);
    const read = readValue(field, raw);
    const problem = 'problem' in read ? read.problem : validateFieldValue(field, read.value);
    if (problem !== undefined || !('value' in read)) {
      problems.push({
        code: TestingErrorCode.InvalidAnswer,
        field: field.name,
        message: `The answer for the field ${quote(field.label)} of the form ${quote(name)} does not fit: ${problem}`,
      });
      continue;
    }
    scripted.set(field.name, read.value);
  }
  const answers: ScriptedFieldAnswer[] = [];
  const content: Record<string, FieldValue> = {};
  for (const field of model.fields) {
    const value = scripted.get(field.name);
    if (value !== undefined) {
      answers.push({ field, value, source: 'scripted' });
      content[field.name] = value;
      continue;
    }
    // A field the script answered wrongly is reported above, not also as left out.
    if (answered.has(field.name)) continue;
    // A field the script leaves out takes its default, or stays empty; a required one without a default is the
    // script's gap to fill, never a pick made on its behalf (the first option, "no").
    const automatic = scriptGapAnswer(field);
    const problem = typeof automatic === 'string' ? automatic : validateFieldValue(field, automatic.value);
    if (problem !== undefined) {
      problems.push({
        code: TestingErrorCode.MissingAnswer,
        field: field.name,
        message: `The form ${quote(name)} needs an answer for the field ${quote(field.label)}, which the script leaves out (${problem.replace(/\.$/, '')}).`,
      });
      continue;
    }
    if (typeof automatic === 'string') continue;
    answers.push(automatic);
    if (automatic.value !== undefined) content[field.name] = automatic.value;
  }
  if (problems.length > 0) throw scriptDoesNotFit(name, problems);
  return { action: 'accept', content, answers };
}

/**
 * Scripts for forms picked by title: a JSON object whose keys are form titles (as `acpkit client --answers FILE` and
 * the test client's `answers` take it). A form is named by its schema `title`, else by the question the agent asked.
 *
 * @example
 * ```ts
 * const scripts: FormScriptsByTitle = { 'Plan the release': { Version: '1.5.0' }, 'Publish 1.5.0 now?': 'decline' };
 * ```
 */
export type FormScriptsByTitle = { readonly [formTitle: string]: FormScript };

/** Per-form scripts: a list used one form at a time, in order, or an object of scripts picked by form title. */
export type AnswerScripts = readonly FormScript[] | FormScriptsByTitle;

/** Where the script for each form the agent asks comes from. */
export interface FormScriptSource {
  /**
   * The script for `form`.
   *
   * @throws {@link ScriptedAnswerError} `NO_SCRIPT_LEFT` when there is none for it.
   */
  next(form: ScriptedForm): FormScript;
}

/**
 * The {@link FormScriptSource} of a list (one script per form, in order: {@link FormScriptQueue}) or of scripts
 * picked by form title (each answers every form with that title, as often as it is asked). `source` names them in
 * messages (`answers.json`, `the answers list`).
 *
 * @example
 * ```ts
 * const scripts = formScriptSource({ 'Plan the release': { Version: '1.5.0' } }, 'answers.json');
 * answerFormWithScript(request, scripts.next(request));
 * ```
 */
export function formScriptSource(scripts: AnswerScripts, source: string): FormScriptSource {
  if (isScriptList(scripts)) return new FormScriptQueue(scripts, source);
  return {
    next(form) {
      const title = readForm(form.requestedSchema).title;
      const script = (title === undefined ? undefined : scripts[title]) ?? scripts[form.message];
      if (script !== undefined) return script;
      const name = title ?? form.message;
      const titles = Object.keys(scripts).map(quote).join(', ');
      throw new ScriptedAnswerError(
        TestingErrorCode.NoScriptLeft,
        `The agent asked the form ${quote(name)}, but ${source} has no answer for it (its answers are for ${titles}; a ` +
          'form is named by its title, else by its question).',
        { form: name },
      );
    },
  };
}

function isScriptList(scripts: AnswerScripts): scripts is readonly FormScript[] {
  return Array.isArray(scripts);
}

/**
 * Hands out per-form scripts in order, one per form the agent asks (`acpkit client --answers FILE`, the test
 * client's `answers` list), and says clearly when the agent asks more forms than the list holds.
 *
 * @example
 * ```ts
 * const queue = new FormScriptQueue([{ Choice: 'Preview' }, 'decline'], 'answers.json');
 * answerFormWithScript(request, queue.next(request));
 * ```
 */
export class FormScriptQueue implements FormScriptSource {
  private used = 0;

  /** @param source - How the list is named in messages (`answers.json`, `the answers list`). */
  constructor(
    private readonly scripts: readonly FormScript[],
    private readonly source: string,
  ) {}

  /**
   * The script for the next form.
   *
   * @throws {@link ScriptedAnswerError} `NO_SCRIPT_LEFT` when every script has been used.
   */
  next(form: ScriptedForm): FormScript {
    const script = this.scripts[this.used];
    if (script === undefined) {
      const count = `${this.scripts.length} ${this.scripts.length === 1 ? 'answer' : 'answers'}`;
      throw new ScriptedAnswerError(
        TestingErrorCode.NoScriptLeft,
        `The agent asked the form ${quote(form.message)}, but ${this.source} holds only ${count} (one per form, in order).`,
        { form: form.message },
      );
    }
    this.used += 1;
    return script;
  }
}

/**
 * Reads `NAME=VALUE` assignments (`acpkit client --answer`, repeatable) into one {@link FormScript}. A name given
 * more than once collects its values into a list (for a multi-select); the split is at the first `=`.
 *
 * @throws {@link ScriptedAnswerError} `INVALID_SCRIPT` when an assignment has no `=` or an empty name.
 * @example
 * ```ts
 * parseAnswerAssignments(['Choice=Preview', 'Channels=Stable', 'Channels=Beta']);
 * // { Choice: 'Preview', Channels: ['Stable', 'Beta'] }
 * ```
 */
export function parseAnswerAssignments(assignments: readonly string[]): FormScript {
  const script: Record<string, string | string[]> = {};
  for (const assignment of assignments) {
    const separator = assignment.indexOf('=');
    const name = separator === -1 ? '' : assignment.slice(0, separator).trim();
    if (name === '') {
      throw new ScriptedAnswerError(
        TestingErrorCode.InvalidScript,
        `--answer ${quote(assignment)} is not NAME=VALUE (NAME is a field's property name or title).`,
      );
    }
    const value = assignment.slice(separator + 1);
    const previous = script[name];
    script[name] =
      previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return script;
}

function isScriptValue(value: unknown): value is ScriptValue {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (Array.isArray(value) && value.every((item) => typeof item === 'string'))
  );
}

/** Checks one entry of a script list or object; `where` names it in messages. */
function checkScript(entry: unknown, where: string): FormScript {
  if (entry === 'decline' || entry === 'cancel') return entry;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ScriptedAnswerError(
      TestingErrorCode.InvalidScript,
      `${where} must be "decline", "cancel" or an object of field answers, not ${JSON.stringify(entry)}.`,
    );
  }
  for (const [field, fieldValue] of Object.entries(entry)) {
    if (!isScriptValue(fieldValue)) {
      throw new ScriptedAnswerError(
        TestingErrorCode.InvalidScript,
        `${where}: the value of ${quote(field)} must be a string, number, boolean or list of strings, not ${JSON.stringify(fieldValue)}.`,
        { field },
      );
    }
  }
  return entry as FormScript;
}

/**
 * Checks that `value` holds per-form scripts (the content of an `acpkit client --answers FILE`, or the test client's
 * `answers`) and returns it typed: a list of {@link FormScript}s, one per form in order, or an object of them keyed
 * by form title ({@link FormScriptsByTitle}). `source` names where it came from in messages.
 *
 * @throws {@link ScriptedAnswerError} `INVALID_SCRIPT` naming the first entry that is not `"decline"`, `"cancel"`
 * or an object of field → string, number, boolean or list of strings.
 * @example
 * ```ts
 * const scripts = parseFormScripts(JSON.parse(readFileSync('answers.json', 'utf8')), 'answers.json');
 * ```
 */
export function parseFormScripts(value: unknown, source: string): AnswerScripts {
  if (Array.isArray(value)) {
    return value.map((entry: unknown, index) => checkScript(entry, `${source}: answer ${index + 1}`));
  }
  if (typeof value !== 'object' || value === null) {
    throw new ScriptedAnswerError(
      TestingErrorCode.InvalidScript,
      `${source} must hold a JSON list with one answer per form, e.g. [{"Choice": "Preview"}, "decline"], or an ` +
        'object of answers keyed by form title, e.g. {"Choose a deployment target": {"Choice": "Preview"}}.',
    );
  }
  const scripts: Record<string, FormScript> = {};
  for (const [title, entry] of Object.entries(value)) {
    scripts[title] = checkScript(entry, `${source}: the answer to ${quote(title)}`);
  }
  return scripts;
}
