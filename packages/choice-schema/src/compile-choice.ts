import { ChoiceValidationError, ChoiceValidationErrorCode } from './errors.js';

/**
 * Name of the single form property that carries the picked token.
 *
 * @example
 * ```ts
 * import { CHOICE_PROPERTY } from '@acpkit/choice-schema';
 *
 * const token = ({ choice: 'choice_0' } as Record<string, unknown>)[CHOICE_PROPERTY]; // 'choice_0'
 * ```
 */
export const CHOICE_PROPERTY = 'choice';
/**
 * Fixed `title` of the choice property (wire-compatible with the Python ACP Kit).
 *
 * @example
 * ```ts
 * import { CHOICE_PROPERTY_TITLE } from '@acpkit/choice-schema';
 *
 * console.log(CHOICE_PROPERTY_TITLE); // 'Choice'
 * ```
 */
export const CHOICE_PROPERTY_TITLE = 'Choice';
/**
 * `_meta` key that repeats an option's description (the key the Python ACP Kit reads and writes).
 *
 * @example
 * ```ts
 * import { CHOICE_DESCRIPTION_META_KEY, type ChoiceEnumOption } from '@acpkit/choice-schema';
 *
 * const describe = (option: ChoiceEnumOption) => option.description ?? option._meta?.[CHOICE_DESCRIPTION_META_KEY];
 * ```
 */
export const CHOICE_DESCRIPTION_META_KEY = 'acpkit.dev/choice-description';

/**
 * What the compiler needs from one choice. `@acpkit/elicitation`'s `ElicitationChoice<T>` adds the typed `value`,
 * which never reaches the wire.
 *
 * @example
 * ```ts
 * import type { ChoiceDefinition } from '@acpkit/choice-schema';
 *
 * const production: ChoiceDefinition = { label: 'Production', description: 'Deploy to production.', default: true };
 * ```
 */
export interface ChoiceDefinition {
  /** Text shown to the user; sent verbatim (untrimmed) as the option `title`. Must not be blank. */
  readonly label: string;
  /** Optional longer text; `""` is still sent. Sent as `description` and under `_meta`. */
  readonly description?: string | undefined;
  /** At most one choice may be the default; its token becomes the schema `default`. */
  readonly default?: boolean | undefined;
}

/**
 * One `oneOf` entry of the compiled form. Structurally an ACP `EnumOption`.
 *
 * @example
 * ```ts
 * import type { ChoiceEnumOption } from '@acpkit/choice-schema';
 *
 * const option: ChoiceEnumOption = { const: 'choice_0', title: 'Preview' };
 * ```
 */
export interface ChoiceEnumOption {
  /** The opaque token `choice_<index>`. */
  const: string;
  /** The choice label. */
  title: string;
  /** The choice description, present only when the choice has one. */
  description?: string;
  /** Present only when the choice has a description; repeats it under {@link CHOICE_DESCRIPTION_META_KEY}. */
  _meta?: { [CHOICE_DESCRIPTION_META_KEY]: string };
}

/**
 * The `requestedSchema` of a choice elicitation. Structurally an ACP `ElicitationSchema`.
 *
 * @example
 * ```ts
 * import type { ChoiceRequestedSchema } from '@acpkit/choice-schema';
 *
 * const schema: ChoiceRequestedSchema = {
 *   type: 'object',
 *   required: ['choice'],
 *   properties: { choice: { type: 'string', title: 'Choice', oneOf: [{ const: 'choice_0', title: 'Preview' }] } },
 * };
 * ```
 */
export interface ChoiceRequestedSchema {
  type: 'object';
  required: ['choice'];
  properties: {
    choice: {
      type: 'string';
      title: typeof CHOICE_PROPERTY_TITLE;
      /** Token of the default choice; absent when no choice is the default. */
      default?: string;
      oneOf: ChoiceEnumOption[];
    };
  };
}

/**
 * Params of the `elicitation/create` request for one choice question: form mode, session scope. Described with local
 * types so this package has no runtime or type dependency on the SDK; they are assignable to the SDK's
 * `CreateElicitationRequest`.
 *
 * @example
 * ```ts
 * import { compileChoiceElicitation, type ChoiceElicitationParams } from '@acpkit/choice-schema';
 *
 * const params: ChoiceElicitationParams = compileChoiceElicitation({
 *   sessionId: 's1',
 *   question: 'Pick one',
 *   choices: [{ label: 'A' }],
 * });
 * ```
 */
export interface ChoiceElicitationParams {
  sessionId: string;
  toolCallId?: string;
  mode: 'form';
  /** The question, verbatim (untrimmed). */
  message: string;
  requestedSchema: ChoiceRequestedSchema;
}

/**
 * Input of {@link compileChoiceElicitation}.
 *
 * @example
 * ```ts
 * import type { CompileChoiceElicitationInput } from '@acpkit/choice-schema';
 *
 * const input: CompileChoiceElicitationInput = { sessionId: 's1', question: 'Pick one', choices: [{ label: 'A' }] };
 * ```
 */
export interface CompileChoiceElicitationInput<Choice extends ChoiceDefinition = ChoiceDefinition> {
  /** The ACP session the question belongs to. */
  readonly sessionId: string;
  /** Optional tool call the question belongs to, so the client can show it beside that tool call. */
  readonly toolCallId?: string | undefined;
  /** The question; must not be blank after `trim()`. */
  readonly question: string;
  /** The choices in display order; at least one. */
  readonly choices: readonly Choice[];
}

/**
 * Returns the opaque token of the choice at `index`: `choice_<index>` (decimal, no padding).
 *
 * @example
 * ```ts
 * import { choiceToken } from '@acpkit/choice-schema';
 *
 * choiceToken(1); // 'choice_1'
 * ```
 */
export function choiceToken(index: number): string {
  return `choice_${index}`;
}

/**
 * A choice with the application value it stands for: what `askChoice`, `askChoices` and form choice fields take.
 * The `value` (any type) never reaches the wire; the client sees the label and an opaque token.
 *
 * @example
 * ```ts
 * import type { ElicitationChoice } from '@acpkit/choice-schema';
 *
 * const production: ElicitationChoice<'production'> = {
 *   value: 'production',
 *   label: 'Production',
 *   description: 'Deploy to the production environment.',
 *   default: true,
 * };
 * ```
 */
export interface ElicitationChoice<T> extends ChoiceDefinition {
  /** The application value returned when this choice is picked. */
  readonly value: T;
}

/**
 * What a key that {@link ElicitationChoice} does not know is typed as: the compile error then names the key
 * (`Type 'true' is not assignable to type 'boolean & NotAChoiceKey<"defualt">'`). An object type, because a
 * primitive intersected with a string message would collapse to `never` and lose the name.
 */
interface NotAChoiceKey<Key> {
  readonly 'is not a choice key (a choice has value, label, description and default)': Key;
}

/**
 * `Choice` with every key that {@link ElicitationChoice} does not know typed as a `NotAChoiceKey<key>`, so a misspelt
 * key (`defualt: true`) in an inferred choice list is a type error naming the key instead of a silently ignored
 * property.
 *
 * @example
 * ```ts
 * import type { ElicitationChoice, ExactChoice } from '@acpkit/choice-schema';
 *
 * declare function offer<Choice extends ElicitationChoice<unknown>>(choices: readonly ExactChoice<Choice>[]): void;
 * offer([{ value: 'a', label: 'A', default: true }]);
 * ```
 */
export type ExactChoice<Choice> = Choice & {
  readonly [Key in Exclude<keyof Choice, keyof ElicitationChoice<unknown>>]: NotAChoiceKey<Key>;
};

/**
 * Throws `BLANK_QUESTION` when the question (an elicitation `message`) is blank after `trim()`.
 *
 * @throws {@link ChoiceValidationError} with code `BLANK_QUESTION`.
 * @example
 * ```ts
 * import { validateQuestion } from '@acpkit/choice-schema';
 *
 * validateQuestion('Release details');
 * ```
 */
export function validateQuestion(question: string): void {
  // `trim()` is the one whitespace definition: it strips Unicode White_Space and line terminators
  // (including U+00A0 and U+2028), so a question made of those is blank too.
  if (typeof question !== 'string' || question.trim() === '') {
    throw new ChoiceValidationError(ChoiceValidationErrorCode.BlankQuestion, 'question must not be blank');
  }
}

/**
 * Checks a list of choices, in this order: at least one, no blank label, and (unless `multiSelect`, where several
 * choices may start selected) at most one default.
 *
 * @throws {@link ChoiceValidationError} with code `EMPTY_CHOICES`, `BLANK_LABEL` or `MULTIPLE_DEFAULTS`.
 * @example
 * ```ts
 * import { validateChoices } from '@acpkit/choice-schema';
 *
 * validateChoices([{ label: 'Stable', default: true }, { label: 'Beta', default: true }], { multiSelect: true });
 * ```
 */
export function validateChoices(
  choices: readonly ChoiceDefinition[],
  options: { readonly multiSelect?: boolean | undefined } = {},
): void {
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new ChoiceValidationError(ChoiceValidationErrorCode.EmptyChoices, 'choices must not be empty');
  }
  for (const choice of choices) {
    const label: unknown = choice?.label;
    if (typeof label !== 'string' || label.trim() === '') {
      throw new ChoiceValidationError(
        ChoiceValidationErrorCode.BlankLabel,
        'choice labels must not be blank',
      );
    }
  }
  if (options.multiSelect !== true && choices.filter((choice) => choice.default === true).length > 1) {
    throw new ChoiceValidationError(
      ChoiceValidationErrorCode.MultipleDefaults,
      'at most one choice may be the default',
    );
  }
}

/**
 * Checks a question and its choices, in this order, and throws the first broken rule as a
 * {@link ChoiceValidationError}: blank question (after `trim()`), no choices, a blank label, two or more defaults.
 *
 * @throws {@link ChoiceValidationError} with code `BLANK_QUESTION`, `EMPTY_CHOICES`, `BLANK_LABEL` or
 * `MULTIPLE_DEFAULTS`.
 * @example
 * ```ts
 * import { validateChoiceQuestion } from '@acpkit/choice-schema';
 *
 * validateChoiceQuestion('Choose a deployment target', [{ label: 'Preview' }, { label: 'Production' }]);
 * ```
 */
export function validateChoiceQuestion(question: string, choices: readonly ChoiceDefinition[]): void {
  validateQuestion(question);
  validateChoices(choices);
}

function compileOption(choice: ChoiceDefinition, index: number): ChoiceEnumOption {
  const option: ChoiceEnumOption = { const: choiceToken(index), title: choice.label };
  if (typeof choice.description === 'string') {
    // Both keys: `description` is the ACP standard; the `_meta` key keeps clients of the Python ACP Kit working.
    option.description = choice.description;
    option._meta = { [CHOICE_DESCRIPTION_META_KEY]: choice.description };
  }
  return option;
}

/**
 * The titled options of a choice list, in order: `{ const: 'choice_<i>', title: label }`, plus `description` and
 * the same text under {@link CHOICE_DESCRIPTION_META_KEY} when the choice has one. Used for the single choice of
 * `askChoice` (`oneOf`) and for form choice fields (`oneOf`, or `items.anyOf` for multi-select). Does not validate.
 *
 * @example
 * ```ts
 * import { compileChoiceOptions } from '@acpkit/choice-schema';
 *
 * compileChoiceOptions([{ label: 'Stable' }, { label: 'Beta' }]);
 * // [{ const: 'choice_0', title: 'Stable' }, { const: 'choice_1', title: 'Beta' }]
 * ```
 */
export function compileChoiceOptions(choices: readonly ChoiceDefinition[]): ChoiceEnumOption[] {
  return choices.map(compileOption);
}

/**
 * Validates a question and its choices, then compiles them into the params of an ACP `elicitation/create` request
 * in form mode: one required string property `choice` titled `Choice` whose `oneOf` lists `choice_<i>` tokens.
 * Pure: no I/O, nothing is sent.
 *
 * @throws {@link ChoiceValidationError} when a rule of {@link validateChoiceQuestion} is broken.
 * @example
 * ```ts
 * import { compileChoiceElicitation } from '@acpkit/choice-schema';
 *
 * const params = compileChoiceElicitation({
 *   sessionId: 'session-1',
 *   question: 'Choose a deployment target',
 *   choices: [
 *     { label: 'Preview' },
 *     { label: 'Production', description: 'Deploy to the production environment.', default: true },
 *   ],
 * });
 * params.requestedSchema.properties.choice.default; // 'choice_1'
 * ```
 */
export function compileChoiceElicitation(input: CompileChoiceElicitationInput): ChoiceElicitationParams {
  const { sessionId, toolCallId, question, choices } = input;
  validateChoiceQuestion(question, choices);
  const defaultIndex = choices.findIndex((choice) => choice.default === true);
  const choiceProperty: ChoiceRequestedSchema['properties']['choice'] = {
    type: 'string',
    title: CHOICE_PROPERTY_TITLE,
  } as ChoiceRequestedSchema['properties']['choice'];
  if (defaultIndex >= 0) choiceProperty.default = choiceToken(defaultIndex);
  choiceProperty.oneOf = compileChoiceOptions(choices);

  const params = { sessionId } as ChoiceElicitationParams;
  if (toolCallId !== undefined) params.toolCallId = toolCallId;
  params.mode = 'form';
  params.message = question;
  params.requestedSchema = {
    type: 'object',
    required: [CHOICE_PROPERTY],
    properties: { choice: choiceProperty },
  };
  return params;
}
