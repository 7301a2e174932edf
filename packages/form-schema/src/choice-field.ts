import {
  choiceIndexOf,
  type ElicitationChoice,
  type ExactChoice,
  validateChoices,
} from '@acpkit/choice-schema';
import { z } from 'zod';

/**
 * Marks the transform inside a choice field. Kept on the transform instance because zod's `.meta()`, `.describe()`,
 * `.optional()` and `.refine()` clone or wrap the outer schema but never the transform, and a `Symbol.for` key is
 * recognised by every copy of this package.
 */
const CHOICE_FIELD = Symbol.for('acpkit.form-schema.choice-field');

/** What the compiler needs to know about a choice field. */
export interface ChoiceFieldDefinition {
  /** The offered choices, in token order (a copy taken when the field was made). */
  readonly choices: readonly ElicitationChoice<unknown>[];
  /** True for {@link choicesField} (an array of tokens on the wire), false for {@link choiceField}. */
  readonly multiSelect: boolean;
}

/**
 * A single-select form field made by {@link choiceField}: a string token on the wire, the offered value once
 * parsed. `z.infer` gives the value type.
 *
 * @example
 * ```ts
 * import { choiceField, type ChoiceFieldSchema } from '@acpkit/form-schema';
 *
 * const target: ChoiceFieldSchema<'preview' | 'production'> = choiceField([
 *   { value: 'preview', label: 'Preview' },
 *   { value: 'production', label: 'Production' },
 * ] as const);
 * ```
 */
export type ChoiceFieldSchema<Value> = z.ZodPipe<z.ZodString, z.ZodTransform<Value, string>>;

/**
 * A multi-select form field made by {@link choicesField}: an array of string tokens on the wire, the array of
 * offered values (in the order the client listed them) once parsed.
 *
 * @example
 * ```ts
 * import { choicesField, type ChoicesFieldSchema } from '@acpkit/form-schema';
 *
 * const channels: ChoicesFieldSchema<'stable' | 'beta'> = choicesField([
 *   { value: 'stable', label: 'Stable' },
 *   { value: 'beta', label: 'Beta' },
 * ] as const);
 * ```
 */
export type ChoicesFieldSchema<Value> = z.ZodPipe<z.ZodArray<z.ZodString>, z.ZodTransform<Value[], string[]>>;

/**
 * Options of {@link choicesField}.
 *
 * @example
 * ```ts
 * import type { ChoicesFieldOptions } from '@acpkit/form-schema';
 *
 * const options: ChoicesFieldOptions = { minItems: 1, maxItems: 2 };
 * ```
 */
export interface ChoicesFieldOptions {
  /** At least this many picks (sent as `minItems`). */
  readonly minItems?: number | undefined;
  /** At most this many picks (sent as `maxItems`). */
  readonly maxItems?: number | undefined;
}

const NOT_OFFERED = 'Not one of the offered choices';
const PICKED_TWICE = 'The same choice was picked more than once';

function mark(transform: object, definition: ChoiceFieldDefinition): void {
  Object.defineProperty(transform, CHOICE_FIELD, { value: Object.freeze(definition) });
}

/**
 * The choice field behind `schema` when it is the pipe {@link choiceField} or {@link choicesField} made (also after
 * `.meta()`, `.describe()` or `.refine()` on it), otherwise `undefined`.
 */
export function choiceFieldOf(schema: z.core.$ZodType): ChoiceFieldDefinition | undefined {
  const def = schema._zod.def;
  if (def.type !== 'pipe') return undefined;
  const transform = (def as z.core.$ZodPipeDef).out as unknown as Record<symbol, unknown>;
  return transform[CHOICE_FIELD] as ChoiceFieldDefinition | undefined;
}

/**
 * A single-select form field for `askForm`: the client sees the labels (and descriptions) as a titled
 * single-select whose options are opaque tokens `choice_<i>`, exactly as with `askChoice`; the parsed answer is the
 * offered value itself, of any type (objects, numbers, `null`…). A choice with `default: true` is preselected; chain
 * `.default(value)` instead to make the field optional with that value. `.meta({ title, description })`,
 * `.optional()` and `.refine()` work as on any zod schema.
 *
 * @throws `ChoiceValidationError` (from `@acpkit/choice-schema`) with code `EMPTY_CHOICES`, `BLANK_LABEL` or
 * `MULTIPLE_DEFAULTS`.
 * @example
 * ```ts
 * import { choiceField } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const release = z.object({
 *   channel: choiceField([
 *     { value: { tag: 'latest' }, label: 'Stable', default: true },
 *     { value: { tag: 'next' }, label: 'Preview', description: 'Published under the next tag.' },
 *   ] as const).meta({ title: 'Channel' }),
 * });
 * type Release = z.infer<typeof release>; // { channel: { readonly tag: 'latest' } | { readonly tag: 'next' } }
 * ```
 */
export function choiceField<Choice extends ElicitationChoice<unknown>>(
  choices: readonly ExactChoice<Choice>[],
): ChoiceFieldSchema<Choice['value']> {
  validateChoices(choices);
  const offered: readonly Choice[] = Object.freeze([...choices]);
  const transform = z.transform((token: string, context): Choice['value'] => {
    const index = choiceIndexOf(token, offered.length);
    if (index === undefined) {
      context.issues.push({ code: 'custom', message: NOT_OFFERED, input: token });
      return z.NEVER;
    }
    return (offered[index] as Choice).value;
  });
  mark(transform, { choices: offered, multiSelect: false });
  return z.string().pipe(transform);
}

/**
 * A multi-select form field for `askForm`: the client sees a titled multi-select (`items.anyOf`) of opaque tokens;
 * the parsed answer is the array of offered values picked, in the order the client sent them. Every choice with
 * `default: true` is preselected. An unknown or repeated token is an invalid answer.
 *
 * @throws `ChoiceValidationError` (from `@acpkit/choice-schema`) with code `EMPTY_CHOICES` or `BLANK_LABEL`.
 * @example
 * ```ts
 * import { choicesField } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const publish = z.object({
 *   packages: choicesField(
 *     [
 *       { value: { name: '@acpkit/elicitation', path: 'packages/elicitation' }, label: 'elicitation', default: true },
 *       { value: { name: '@acpkit/remote', path: 'packages/remote' }, label: 'remote' },
 *     ],
 *     { minItems: 1 },
 *   ).meta({ title: 'Packages' }),
 * });
 * ```
 */
export function choicesField<Choice extends ElicitationChoice<unknown>>(
  choices: readonly ExactChoice<Choice>[],
  options: ChoicesFieldOptions = {},
): ChoicesFieldSchema<Choice['value']> {
  validateChoices(choices, { multiSelect: true });
  const offered: readonly Choice[] = Object.freeze([...choices]);
  const transform = z.transform((tokens: string[], context): Choice['value'][] => {
    const values: Choice['value'][] = [];
    const picked = new Set<number>();
    let valid = true;
    tokens.forEach((token, position) => {
      const index = choiceIndexOf(token, offered.length);
      if (index === undefined || picked.has(index)) {
        const message = index === undefined ? NOT_OFFERED : PICKED_TWICE;
        context.issues.push({ code: 'custom', message, input: token, path: [position] });
        valid = false;
        return;
      }
      picked.add(index);
      values.push((offered[index] as Choice).value);
    });
    return valid ? values : z.NEVER;
  });
  mark(transform, { choices: offered, multiSelect: true });
  let tokens = z.array(z.string());
  if (options.minItems !== undefined) tokens = tokens.min(options.minItems);
  if (options.maxItems !== undefined) tokens = tokens.max(options.maxItems);
  return tokens.pipe(transform);
}
