import type { z } from 'zod';
import type { ConstructPhrase } from './construct-phrase.js';

// Type-level mirror of the run-time compiler: every zod construct the compiler refuses that TypeScript can see is a
// compile error naming the property and the construct. Checks inside a type (`.gt()` on a number, regex flags) are
// invisible to the type system and are refused at run time only.

type DefinitionOf<Schema> = Schema extends { _zod: { def: infer Definition } } ? Definition : never;
type KindOf<Schema> = DefinitionOf<Schema> extends { type: infer Kind } ? Kind : never;
type InnerOf<Schema> = DefinitionOf<Schema> extends { innerType: infer Inner } ? Inner : never;

type InputOf<Schema> = Schema extends { _zod: { input: infer Input } } ? Input : never;

type WrapperKind = 'optional' | 'default' | 'prefault' | 'readonly' | 'nonoptional';

/** A coerced `z.coerce.string()` / `.number()` / `.boolean()` takes `unknown` as its input; the plain ones do not. */
type CoerceRefusal<Field> =
  unknown extends InputOf<Field>
    ? 'z.coerce (it would accept an answer of the wrong type: use z.string(), z.number() or z.boolean())'
    : never;

type ChoiceRefusal<Schema> =
  KindOf<Schema> extends 'enum'
    ? DefinitionOf<Schema> extends { entries: infer Entries }
      ? Entries[keyof Entries] extends string
        ? never
        : 'an enum with values that are not strings (use choiceField)'
      : never
    : KindOf<Schema> extends 'literal'
      ? DefinitionOf<Schema> extends { values: readonly (infer Value)[] }
        ? [Value] extends [string]
          ? never
          : 'a literal that is not a string (use choiceField)'
        : never
      : 'an array whose items are not z.enum or z.literal strings (use choicesField)';

type PipeInputRefusal<Input> =
  KindOf<Input> extends 'array'
    ? DefinitionOf<Input> extends { element: infer Element }
      ? KindOf<Element> extends 'string'
        ? never
        : ChoiceRefusal<Element>
      : never
    : KindOf<Input> extends 'transform'
      ? 'a preprocess or transform whose input is not a form field'
      : FieldRefusal<Input>;

/**
 * Why ACP forms cannot express the zod schema `Field` (a phrase for the error message), or `never` when they can.
 */
export type FieldRefusal<Field> =
  KindOf<Field> extends WrapperKind
    ? FieldRefusal<InnerOf<Field>>
    : KindOf<Field> extends 'string' | 'number' | 'boolean'
      ? CoerceRefusal<Field>
      : KindOf<Field> extends 'enum' | 'literal'
        ? ChoiceRefusal<Field>
        : KindOf<Field> extends 'array'
          ? DefinitionOf<Field> extends { element: infer Element }
            ? ChoiceRefusal<Element>
            : never
          : KindOf<Field> extends 'pipe'
            ? DefinitionOf<Field> extends { in: infer Input }
              ? PipeInputRefusal<Input>
              : never
            : KindOf<Field> extends 'object'
              ? 'a nested object (ACP forms are flat)'
              : KindOf<Field> extends 'nullable'
                ? 'nullable (ACP answers never contain null: use .optional())'
                : KindOf<Field> extends 'catch'
                  ? '.catch() (it would turn an invalid answer into a valid one)'
                  : KindOf<Field> extends 'transform'
                    ? 'a transform whose input is not a form field'
                    : KindOf<Field> extends 'date'
                      ? 'a date (ACP forms carry dates as text: use z.iso.date() or z.iso.datetime())'
                      : `${ConstructPhrase<KindOf<Field> & string>} (no ACP form field has this type)`;

type FieldCheck<Field, Name> = [FieldRefusal<Field>] extends [never]
  ? unknown
  : `ACP forms cannot express property '${Name & string}': it is ${FieldRefusal<Field> & string}`;

/**
 * What a zod object schema must also satisfy to be a form: each property whose type ACP forms cannot express is
 * typed as a message naming the property and the construct, so passing such a schema fails to compile with that
 * message. Used as `schema: Schema & FormSchemaCheck<Schema>`.
 *
 * @example
 * ```ts
 * import type { FormSchemaCheck } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * declare function takesForm<Schema extends z.core.$ZodObject>(schema: Schema & FormSchemaCheck<Schema>): void;
 * takesForm(z.object({ name: z.string(), replicas: z.int().min(1) }));
 * ```
 */
export type FormSchemaCheck<Schema> = Schema extends { _zod: { def: { shape: infer Shape } } }
  ? IsUnknownShape<Shape> extends true
    ? NotAnObjectSchema
    : { _zod: { def: { shape: { [Name in keyof Shape]: FieldCheck<Shape[Name], Name> } } } }
  : NotAnObjectSchema;

type NotAnObjectSchema = 'ACP forms are zod object schemas: pass z.object({ ... })';
/**
 * A shape of any property name holding any zod type is the constraint's ({@link FormObjectSchema}), which TypeScript
 * falls back to when the argument is not an object schema at all (`z.string()`): the message must then say so,
 * instead of listing every construct a field could be.
 */
type IsUnknownShape<Shape> = string extends keyof Shape
  ? z.core.$ZodType extends Shape[keyof Shape]
    ? true
    : false
  : false;

/**
 * A zod 4 object schema, the input of the form compiler (`z.object`, `z.strictObject`, `z.looseObject`).
 *
 * @example
 * ```ts
 * import type { FormObjectSchema } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const schema: FormObjectSchema = z.object({ name: z.string() });
 * ```
 */
export type FormObjectSchema = z.core.$ZodObject;

/**
 * The typed value a form answer parses to: `z.output` of the schema (defaults applied, transforms run, choice
 * fields mapped back to the offered values).
 *
 * @example
 * ```ts
 * import type { FormValue } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const schema = z.object({ replicas: z.int().default(2) });
 * const value: FormValue<typeof schema> = { replicas: 2 };
 * ```
 */
export type FormValue<Schema extends FormObjectSchema> = z.output<Schema>;
