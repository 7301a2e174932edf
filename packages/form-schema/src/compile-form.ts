import { type ChoiceEnumOption, choiceToken, compileChoiceOptions } from '@acpkit/choice-schema';
import { z } from 'zod';
import { type ChoiceFieldDefinition, choiceFieldOf } from './choice-field.js';
import { constructPhrase } from './construct-phrase.js';
import { FormSchemaError, FormSchemaErrorCode } from './errors.js';
import type { FormObjectSchema, FormSchemaCheck } from './form-types.js';

type Schema = z.core.$ZodType;
type CheckDefinition = z.core.$ZodCheckDef & Record<string, unknown>;

/**
 * The string formats ACP forms know.
 *
 * @example
 * ```ts
 * import type { FormStringFormat } from '@acpkit/form-schema';
 *
 * const format: FormStringFormat = 'date-time';
 * ```
 */
export type FormStringFormat = 'email' | 'uri' | 'date' | 'date-time';

interface FormPropertyBase {
  /** From `.meta({ title })`. */
  title?: string;
  /** From `.meta({ description })` or `.describe()`. */
  description?: string;
}

/**
 * A text or single-select property of a compiled form.
 *
 * @example
 * ```ts
 * import type { FormStringProperty } from '@acpkit/form-schema';
 *
 * const version: FormStringProperty = { type: 'string', title: 'Version', pattern: '^\\d+\\.\\d+\\.\\d+$' };
 * ```
 */
export interface FormStringProperty extends FormPropertyBase {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: FormStringFormat;
  default?: string;
  /** Single-select options: the `z.enum` values (titled with themselves) or `choice_<i>` tokens. */
  oneOf?: ChoiceEnumOption[];
}

/**
 * A number property of a compiled form (`z.number()`).
 *
 * @example
 * ```ts
 * import type { FormNumberProperty } from '@acpkit/form-schema';
 *
 * const ratio: FormNumberProperty = { type: 'number', minimum: 0, maximum: 1 };
 * ```
 */
export interface FormNumberProperty extends FormPropertyBase {
  type: 'number';
  minimum?: number;
  maximum?: number;
  default?: number;
}

/**
 * An integer property of a compiled form (`z.int()`, `.int()`).
 *
 * @example
 * ```ts
 * import type { FormIntegerProperty } from '@acpkit/form-schema';
 *
 * const replicas: FormIntegerProperty = { type: 'integer', minimum: 1, maximum: 5, default: 2 };
 * ```
 */
export interface FormIntegerProperty extends FormPropertyBase {
  type: 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

/**
 * A yes/no property of a compiled form.
 *
 * @example
 * ```ts
 * import type { FormBooleanProperty } from '@acpkit/form-schema';
 *
 * const notify: FormBooleanProperty = { type: 'boolean', default: true };
 * ```
 */
export interface FormBooleanProperty extends FormPropertyBase {
  type: 'boolean';
  default?: boolean;
}

/**
 * A multi-select property of a compiled form: `z.array(z.enum(...))` or a choices field.
 *
 * @example
 * ```ts
 * import type { FormMultiSelectProperty } from '@acpkit/form-schema';
 *
 * const channels: FormMultiSelectProperty = { type: 'array', minItems: 1, items: { anyOf: [{ const: 'beta', title: 'beta' }] } };
 * ```
 */
export interface FormMultiSelectProperty extends FormPropertyBase {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { anyOf: ChoiceEnumOption[] };
  default?: string[];
}

/**
 * One property of a compiled form. Structurally an ACP `ElicitationPropertySchema`.
 *
 * @example
 * ```ts
 * import type { FormPropertySchema } from '@acpkit/form-schema';
 *
 * const property: FormPropertySchema = { type: 'boolean', title: 'Notify the team' };
 * ```
 */
export type FormPropertySchema =
  | FormStringProperty
  | FormNumberProperty
  | FormIntegerProperty
  | FormBooleanProperty
  | FormMultiSelectProperty;

/**
 * The `requestedSchema` of a compiled form. Structurally an ACP `ElicitationSchema`.
 *
 * @example
 * ```ts
 * import type { FormRequestedSchema } from '@acpkit/form-schema';
 *
 * const schema: FormRequestedSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
 * ```
 */
export interface FormRequestedSchema {
  type: 'object';
  /** From `.meta({ title })` on the object schema. */
  title?: string;
  /** From `.meta({ description })` or `.describe()` on the object schema. */
  description?: string;
  /** Properties whose zod input is neither optional nor defaulted; absent when there are none. */
  required?: string[];
  properties: { [name: string]: FormPropertySchema };
}

/**
 * A zod object schema compiled to an ACP form: the schema itself (to validate answers with), the frozen
 * `requestedSchema` to send, and the property names answers are read from.
 *
 * @example
 * ```ts
 * import { compileForm, type CompiledForm } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const schema = z.object({ name: z.string() });
 * const form: CompiledForm<typeof schema> = compileForm(schema);
 * ```
 */
export interface CompiledForm<Form extends FormObjectSchema = FormObjectSchema> {
  readonly schema: Form;
  readonly requestedSchema: Readonly<FormRequestedSchema>;
  readonly fieldNames: readonly string[];
  /**
   * Tokens answered for a choice field with a `.default()` that the client left out: parsed like a pick, they give
   * back the offered value itself (zod's own default would be a shallow copy of it).
   */
  readonly defaultTokens: Readonly<Record<string, string | readonly string[]>>;
}

// ACP's string formats and the zod formats that mean them; the zod check stays authoritative on the answer.
const ACP_FORMATS: Readonly<Record<string, FormStringFormat>> = {
  email: 'email',
  url: 'uri',
  date: 'date',
  datetime: 'date-time',
};
// Flags whose absence or presence does not change what a regular expression accepts in `test()` (`u` is how
// JSON Schema readers compile `pattern` anyway).
const HARMLESS_REGEX_FLAGS = new Set(['u', 'g', 'd']);
// Number formats whose range is worth sending; the safe-integer and float64 ranges are just "any number".
const SENT_NUMBER_FORMAT_RANGES = new Set(['int32', 'uint32', 'float32']);
const MAX_QUOTED_LENGTH = 100;

function quote(value: string): string {
  return JSON.stringify(value.length > MAX_QUOTED_LENGTH ? `${value.slice(0, MAX_QUOTED_LENGTH)}…` : value);
}

function refuse(
  code: FormSchemaErrorCode,
  path: string,
  construct: string,
  problem: string,
): FormSchemaError {
  const where = path === '' ? 'The form schema' : `Property ${quote(path)}`;
  return new FormSchemaError(code, `${where} ${problem}`, { path, construct });
}

function isZodSchema(value: unknown): value is Schema {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return false;
  const internals = (value as { _zod: unknown })._zod;
  return typeof internals === 'object' && internals !== null && 'def' in internals;
}

/** A schema's checks; a format schema such as `z.email()` is its own first check, as zod itself treats it. */
function checksOf(schema: Schema): CheckDefinition[] {
  const def = schema._zod.def as z.core.$ZodTypeDef & { check?: string };
  const own = typeof def.check === 'string' ? [def as unknown as CheckDefinition] : [];
  return [...own, ...(def.checks ?? []).map((check) => check._zod.def as CheckDefinition)];
}

function isValidationOnly(check: CheckDefinition): boolean {
  // `.refine()` / `.superRefine()` / `.check(fn)` and value rewrites (`.trim()`, `.toLowerCase()`) run on the
  // answer only: nothing on the wire could say them.
  return check.check === 'custom' || check.check === 'overwrite';
}

function unsupportedCheck(path: string, check: CheckDefinition, hint: string): FormSchemaError {
  const construct = check.check === 'string_format' ? String(check.format) : check.check;
  return refuse(
    FormSchemaErrorCode.UnsupportedCheck,
    path,
    construct,
    `uses the check ${construct}, which ACP forms cannot send; ${hint}`,
  );
}

function refuseChecksOtherThanValidation(schema: Schema, path: string): void {
  for (const check of checksOf(schema)) {
    if (!isValidationOnly(check)) {
      throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
    }
  }
}

function checkBounds(path: string, low: number | undefined, high: number | undefined, what: string): void {
  if (low !== undefined && high !== undefined && low > high) {
    throw refuse(
      FormSchemaErrorCode.ImpossibleBounds,
      path,
      what,
      `can never be answered: its ${what} minimum ${low} is above its maximum ${high}`,
    );
  }
}

interface Annotations {
  title?: string;
  description?: string;
}

function annotate(annotations: Annotations, schema: Schema): void {
  // `.meta()` and `.describe()` write zod's global registry; the outermost layer that has a value wins.
  const metadata = z.globalRegistry.get(schema) as Record<string, unknown> | undefined;
  if (metadata === undefined) return;
  if (annotations.title === undefined && typeof metadata.title === 'string')
    annotations.title = metadata.title;
  if (annotations.description === undefined && typeof metadata.description === 'string') {
    annotations.description = metadata.description;
  }
}

type Constraints = Record<string, unknown>;

/** The tightest bounds of zod's length checks, which strings and arrays share. */
interface LengthBounds {
  minimum?: number;
  maximum?: number;
}

/** Folds a `.min()` / `.max()` / `.length()` check into `bounds`; false when `check` is another kind of check. */
function foldLength(bounds: LengthBounds, check: CheckDefinition): boolean {
  const raise = (value: number) => {
    bounds.minimum = Math.max(bounds.minimum ?? 0, value);
  };
  const lower = (value: number) => {
    bounds.maximum = Math.min(bounds.maximum ?? Number.POSITIVE_INFINITY, value);
  };
  switch (check.check) {
    case 'min_length':
      raise(check.minimum as number);
      return true;
    case 'max_length':
      lower(check.maximum as number);
      return true;
    case 'length_equals':
      raise(check.length as number);
      lower(check.length as number);
      return true;
    default:
      return false;
  }
}

/**
 * The regular expression of a `z.iso.datetime()` check that accepts something other than ACP's `date-time` (RFC 3339
 * with a `Z` or an offset): without `offset: true` zod accepts only `Z`, `precision` fixes the digits of the
 * fraction, and `local` also accepts times without any offset (which no `date-time` client would send). `undefined`
 * for `{ offset: true }` alone, which accepts what the format means.
 */
function narrowerDateTime(check: CheckDefinition): { pattern: string; local: boolean } | undefined {
  if (check.format !== 'datetime' || !(check.pattern instanceof RegExp)) return undefined;
  const local = check.local === true;
  const exact =
    check.offset === true && !local && (check.precision === undefined || check.precision === null);
  return exact ? undefined : { pattern: check.pattern.source, local };
}

function compileString(schema: Schema, path: string): Constraints {
  const def = schema._zod.def as z.core.$ZodStringDef;
  if (def.coerce) throw refuseCoercion(path);
  const lengths: LengthBounds = {};
  let format: FormStringFormat | undefined;
  const patterns = new Map<string, string>();
  for (const check of checksOf(schema)) {
    if (foldLength(lengths, check)) continue;
    switch (check.check) {
      case 'string_format': {
        const acpFormat = ACP_FORMATS[String(check.format)];
        if (acpFormat !== undefined) {
          const narrower = narrowerDateTime(check);
          if (narrower !== undefined) {
            // zod accepts less than (or, local, other than) ACP's date-time: its own regular expression goes on the
            // wire, so a client checks exactly what the answer will be parsed with.
            patterns.set(narrower.pattern, 'datetime');
            // A local date-time has no offset: sending the format would make a client refuse valid answers.
            if (narrower.local) break;
          }
          if (format !== undefined && format !== acpFormat) {
            throw refuse(
              FormSchemaErrorCode.MultipleFormats,
              path,
              String(check.format),
              `has two formats (${format} and ${acpFormat}); an ACP string has one format`,
            );
          }
          format = acpFormat;
          break;
        }
        const pattern = check.pattern;
        if (!(pattern instanceof RegExp)) {
          throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
        }
        const refusedFlags = [...pattern.flags].filter((flag) => !HARMLESS_REGEX_FLAGS.has(flag));
        if (refusedFlags.length > 0) {
          throw refuse(
            FormSchemaErrorCode.UnsupportedRegexFlags,
            path,
            check.format === 'regex' ? 'regex' : String(check.format),
            `uses the regular expression flag${refusedFlags.length > 1 ? 's' : ''} ${refusedFlags.join('')}, which a ` +
              'JSON Schema pattern cannot carry; spell it out in the pattern (for example [Aa] instead of the i flag)',
          );
        }
        patterns.set(pattern.source, String(check.format));
        break;
      }
      default:
        if (!isValidationOnly(check))
          throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
    }
  }
  if (patterns.size > 1) {
    const sources = [...patterns.values()];
    throw refuse(
      FormSchemaErrorCode.MultiplePatterns,
      path,
      sources.join('+'),
      sources.includes('datetime')
        ? 'has a regular expression besides its date-time; a z.iso.datetime() without { offset: true } (or with ' +
            'local or precision) is sent as its own pattern, and an ACP string has one pattern: use ' +
            'z.iso.datetime({ offset: true }), or check the other expression with .refine()'
        : 'has more than one regular expression (from .regex(), .startsWith(), .includes(), .uuid(), …); an ACP ' +
            'string has one pattern: combine them into one .regex(), or check the others with .refine()',
    );
  }
  checkBounds(path, lengths.minimum, lengths.maximum, 'length');
  const constraints: Constraints = {};
  if (lengths.minimum !== undefined) constraints.minLength = lengths.minimum;
  if (lengths.maximum !== undefined) constraints.maxLength = lengths.maximum;
  const [pattern] = patterns.keys();
  if (pattern !== undefined) constraints.pattern = pattern;
  if (format !== undefined) constraints.format = format;
  return constraints;
}

function compileNumber(schema: Schema, path: string): { integer: boolean; constraints: Constraints } {
  const def = schema._zod.def as z.core.$ZodNumberDef;
  if (def.coerce) throw refuseCoercion(path);
  let integer = false;
  let minimum: number | undefined;
  let maximum: number | undefined;
  let exclusiveMinimum: number | undefined;
  let exclusiveMaximum: number | undefined;
  const raiseMinimum = (value: number) => {
    minimum = Math.max(minimum ?? Number.NEGATIVE_INFINITY, value);
  };
  const lowerMaximum = (value: number) => {
    maximum = Math.min(maximum ?? Number.POSITIVE_INFINITY, value);
  };
  for (const check of checksOf(schema)) {
    switch (check.check) {
      case 'number_format': {
        const format = String(check.format);
        if (format.includes('int')) integer = true;
        const range = z.core.util.NUMBER_FORMAT_RANGES[format as z.core.$ZodNumberFormats];
        if (range !== undefined && SENT_NUMBER_FORMAT_RANGES.has(format)) {
          raiseMinimum(range[0]);
          lowerMaximum(range[1]);
        }
        break;
      }
      case 'greater_than':
        if (check.inclusive) raiseMinimum(Number(check.value));
        else exclusiveMinimum = Math.max(exclusiveMinimum ?? Number.NEGATIVE_INFINITY, Number(check.value));
        break;
      case 'less_than':
        if (check.inclusive) lowerMaximum(Number(check.value));
        else exclusiveMaximum = Math.min(exclusiveMaximum ?? Number.POSITIVE_INFINITY, Number(check.value));
        break;
      case 'multiple_of':
        throw unsupportedCheck(
          path,
          check,
          'use .int() for whole numbers, or .refine() to check it on the answer',
        );
      default:
        if (!isValidationOnly(check))
          throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
    }
  }
  if (exclusiveMinimum !== undefined || exclusiveMaximum !== undefined) {
    if (!integer) {
      throw refuse(
        FormSchemaErrorCode.ExclusiveBound,
        path,
        exclusiveMinimum !== undefined ? 'greater_than' : 'less_than',
        'has an exclusive bound (.gt(), .lt(), .positive(), .negative()); ACP forms have only inclusive bounds: ' +
          'use .min() / .max(), or .int() (an exclusive bound on an integer is sent as the next whole number)',
      );
    }
    // Exact for integers: x > 4.5 and x >= 5 accept the same whole numbers.
    if (exclusiveMinimum !== undefined) raiseMinimum(Math.floor(exclusiveMinimum) + 1);
    if (exclusiveMaximum !== undefined) lowerMaximum(Math.ceil(exclusiveMaximum) - 1);
  }
  checkBounds(path, minimum, maximum, 'value');
  const constraints: Constraints = {};
  if (minimum !== undefined) constraints.minimum = minimum;
  if (maximum !== undefined) constraints.maximum = maximum;
  return { integer, constraints };
}

function refuseCoercion(path: string): FormSchemaError {
  return refuse(
    FormSchemaErrorCode.UnsupportedType,
    path,
    'coerce',
    'uses z.coerce, which would silently accept an answer of the wrong type; ACP answers are already typed: use ' +
      'z.string(), z.number() or z.boolean()',
  );
}

/** The string values of a `z.enum` / `z.literal`, or a refusal naming the first value that is not a string. */
function stringValues(schema: Schema, path: string): string[] {
  const def = schema._zod.def as z.core.$ZodEnumDef | z.core.$ZodLiteralDef<z.core.util.Literal>;
  const values: unknown[] =
    def.type === 'enum'
      ? z.core.util.getEnumValues(def.entries)
      : [...(def as z.core.$ZodLiteralDef<z.core.util.Literal>).values];
  const other = values.find((value) => typeof value !== 'string');
  if (values.length !== 0 && other === undefined) return values as string[];
  throw refuse(
    FormSchemaErrorCode.NonStringEnum,
    path,
    def.type,
    `has the ${def.type} value ${String(other)}; ACP options are strings: offer other values with choiceField / ` +
      'choicesField, which send opaque tokens and give back the value',
  );
}

function titledValues(values: readonly string[]): ChoiceEnumOption[] {
  return values.map((value) => ({ const: value, title: value }));
}

function compileItemCounts(arrayNode: Schema, path: string, optionCount: number): Constraints {
  const counts: LengthBounds = {};
  for (const check of checksOf(arrayNode)) {
    if (!foldLength(counts, check) && !isValidationOnly(check)) {
      throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
    }
  }
  const { minimum: minItems, maximum: maxItems } = counts;
  checkBounds(path, minItems, maxItems, 'item count');
  if (minItems !== undefined && minItems > optionCount) {
    throw refuse(
      FormSchemaErrorCode.ImpossibleBounds,
      path,
      'item count',
      `can never be answered: it needs at least ${minItems} picks from ${optionCount} options`,
    );
  }
  const constraints: Constraints = {};
  if (minItems !== undefined) constraints.minItems = minItems;
  if (maxItems !== undefined) constraints.maxItems = maxItems;
  return constraints;
}

/** The outermost `.default()` / `.prefault()` of a field, and how many transforms lie above it. */
interface DefaultLayer {
  readonly kind: 'default' | 'prefault';
  readonly value: unknown;
  readonly inner: Schema;
  readonly transformsAbove: number;
}

/** What one field compiles to before its title, description and default are added. */
interface Base {
  readonly type: FormPropertySchema['type'];
  readonly constraints: Constraints;
  /** `oneOf` (single-select) or `items` (multi-select). */
  readonly options?: Constraints;
  readonly choiceField?: ChoiceFieldDefinition;
  /** The enum values a `z.enum` multi-select default must come from. */
  readonly multiSelectValues?: readonly string[];
}

function compileChoiceField(pipe: Schema, definition: ChoiceFieldDefinition, path: string): Base {
  refuseChecksOtherThanValidation(pipe, path);
  const options = compileChoiceOptions(definition.choices);
  if (!definition.multiSelect) {
    return { type: 'string', constraints: {}, options: { oneOf: options }, choiceField: definition };
  }
  const tokens = (pipe._zod.def as z.core.$ZodPipeDef).in;
  return {
    type: 'array',
    constraints: compileItemCounts(tokens, path, definition.choices.length),
    options: { items: { anyOf: options } },
    choiceField: definition,
  };
}

function compileArray(schema: Schema, path: string): Base {
  const element = (schema._zod.def as z.core.$ZodArrayDef).element;
  const kind = element._zod.def.type;
  if (kind !== 'enum' && kind !== 'literal') {
    throw refuse(
      FormSchemaErrorCode.UnsupportedType,
      `${path}[]`,
      kind,
      'is not a z.enum or z.literal of strings; ACP multi-selects pick from fixed string options: use ' +
        'z.array(z.enum([...])), or choicesField(...) for other values',
    );
  }
  refuseChecksOtherThanValidation(element, `${path}[]`);
  const values = stringValues(element, `${path}[]`);
  return {
    type: 'array',
    constraints: compileItemCounts(schema, path, values.length),
    options: { items: { anyOf: titledValues(values) } },
    multiSelectValues: values,
  };
}

function compileBase(schema: Schema, path: string): Base {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
      return { type: 'string', constraints: compileString(schema, path) };
    case 'number': {
      const { integer, constraints } = compileNumber(schema, path);
      return { type: integer ? 'integer' : 'number', constraints };
    }
    case 'boolean':
      if ((def as z.core.$ZodBooleanDef).coerce) throw refuseCoercion(path);
      refuseChecksOtherThanValidation(schema, path);
      return { type: 'boolean', constraints: {} };
    case 'enum':
    case 'literal': {
      refuseChecksOtherThanValidation(schema, path);
      return {
        type: 'string',
        constraints: {},
        options: { oneOf: titledValues(stringValues(schema, path)) },
      };
    }
    case 'array':
      return compileArray(schema, path);
    case 'object':
      throw refuse(
        FormSchemaErrorCode.NestedObject,
        path,
        'object',
        'is a nested object; ACP forms are flat: move its fields up into the form (or ask a second form)',
      );
    case 'nullable':
      throw refuse(
        FormSchemaErrorCode.Nullable,
        path,
        'nullable',
        'is nullable; ACP answers never contain null (an unanswered field is absent): use .optional()',
      );
    case 'transform':
      throw refuse(
        FormSchemaErrorCode.UnsupportedTransform,
        path,
        'transform',
        'is a transform or preprocess whose input is not a form field; put the transform after a form field ' +
          '(z.string().transform(...)) so the client knows what to ask',
      );
    case 'catch':
      throw refuse(
        FormSchemaErrorCode.UnsupportedType,
        path,
        'catch',
        'uses .catch(), which would turn an invalid answer into a valid one; drop it (invalid answers are ' +
          'reported as InvalidElicitationResponseError)',
      );
    case 'date':
      throw refuse(
        FormSchemaErrorCode.UnsupportedType,
        path,
        'date',
        'is a date (z.date()), which no ACP form field can hold: ACP forms carry dates as text; use z.iso.date() ' +
          '(YYYY-MM-DD) or z.iso.datetime() (an RFC 3339 date and time), which the client shows as a date field',
      );
    default:
      throw refuse(
        FormSchemaErrorCode.UnsupportedType,
        path,
        def.type,
        `is ${constructPhrase(def.type)}, which no ACP form field can hold; form fields are strings, numbers, integers, ` +
          'booleans, single-selects (z.enum, choiceField) and multi-selects (z.array(z.enum), choicesField)',
      );
  }
}

function invalidDefault(path: string, problem: string): FormSchemaError {
  return refuse(FormSchemaErrorCode.InvalidDefault, path, 'default', problem);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether a `.default()` value stands for an offered value. zod hands out a shallow copy of plain-object and array
 * defaults, so those match an offered value with the same own keys and values; anything else must be the same value.
 */
function standsFor(offered: unknown, value: unknown): boolean {
  if (Object.is(offered, value)) return true;
  if (Array.isArray(offered) && Array.isArray(value)) {
    return offered.length === value.length && offered.every((entry, index) => Object.is(entry, value[index]));
  }
  if (isPlainObject(offered) && isPlainObject(value)) {
    const keys = Object.keys(offered);
    return (
      keys.length === Object.keys(value).length &&
      keys.every((key) => Object.hasOwn(value, key) && Object.is(offered[key], value[key]))
    );
  }
  return false;
}

function choiceTokenOf(definition: ChoiceFieldDefinition, value: unknown, path: string): string {
  const index = definition.choices.findIndex((choice) => standsFor(choice.value, value));
  if (index === -1)
    throw invalidDefault(path, 'has a .default() that is not one of the offered choice values');
  return choiceToken(index);
}

/** The wire `default` of a choice field: from `.default(value)` (mapped to tokens), else the choices marked default. */
function choiceDefault(
  definition: ChoiceFieldDefinition,
  layer: DefaultLayer | undefined,
  path: string,
): unknown {
  if (layer !== undefined) {
    if (layer.kind === 'prefault') {
      throw invalidDefault(
        path,
        'uses .prefault() on a choice field; use .default(value) or default: true on a choice',
      );
    }
    if (!definition.multiSelect) return choiceTokenOf(definition, layer.value, path);
    if (!Array.isArray(layer.value))
      throw invalidDefault(path, 'has a .default() that is not an array of values');
    return layer.value.map((value) => choiceTokenOf(definition, value, path));
  }
  const tokens = definition.choices.flatMap((choice, index) =>
    choice.default === true ? [choiceToken(index)] : [],
  );
  if (tokens.length === 0) return undefined;
  return definition.multiSelect ? tokens : tokens[0];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Refuses a wire default that the client could not send back as a valid answer: a multi-select default outside its
 * own `minItems` / `maxItems`, or any default that the whole field (its checks, refinements and pipes, also those
 * outside the `.default()`) does not accept. `marked` says the default comes from choices marked `default: true`.
 */
function checkDefault(field: Schema, base: Base, wireDefault: unknown, path: string, marked: boolean): void {
  const source = marked ? 'has choices marked default: true' : 'has a .default()';
  if (Array.isArray(wireDefault)) {
    const { minItems, maxItems } = base.constraints as { minItems?: number; maxItems?: number };
    const count = marked
      ? `has ${plural(wireDefault.length, 'choice')} marked default: true`
      : `has a .default() of ${plural(wireDefault.length, 'pick')}`;
    if (maxItems !== undefined && wireDefault.length > maxItems) {
      throw invalidDefault(path, `${count}, more than its maxItems ${maxItems}`);
    }
    if (minItems !== undefined && wireDefault.length < minItems) {
      throw invalidDefault(path, `${count}, fewer than its minItems ${minItems}`);
    }
  }
  let result: { success: boolean; error?: { issues: readonly { message: string }[] } };
  try {
    result = z.safeParse(field, wireDefault);
  } catch {
    // An asynchronous refinement cannot be checked here; the value is still sent, and checked on the answer.
    return;
  }
  if (!result.success) {
    throw invalidDefault(
      path,
      `${source} that is not a valid answer of the field itself: ${result.error?.issues[0]?.message ?? 'invalid'}`,
    );
  }
}

interface CompiledField {
  readonly property: FormPropertySchema;
  readonly defaultTokens?: string | readonly string[];
}

function compileField(name: string, field: Schema): CompiledField {
  const annotations: Annotations = {};
  let defaultLayer: DefaultLayer | undefined;
  let transforms = 0;
  let node = field;
  for (;;) {
    annotate(annotations, node);
    const def = node._zod.def;
    if (def.type === 'optional' || def.type === 'readonly' || def.type === 'nonoptional') {
      node = (def as z.core.$ZodOptionalDef).innerType;
      continue;
    }
    if (def.type === 'default' || def.type === 'prefault') {
      const inner = (def as z.core.$ZodDefaultDef).innerType;
      defaultLayer ??= {
        kind: def.type,
        value: (def as z.core.$ZodDefaultDef).defaultValue,
        inner,
        transformsAbove: transforms,
      };
      node = inner;
      continue;
    }
    if (def.type === 'pipe' && choiceFieldOf(node) === undefined) {
      // A transform (or pipe) after a form field: the field is asked, the transform runs on the answer.
      transforms += 1;
      node = (def as z.core.$ZodPipeDef).in;
      continue;
    }
    break;
  }
  const choiceDefinition = choiceFieldOf(node);
  const base =
    choiceDefinition !== undefined
      ? compileChoiceField(node, choiceDefinition, name)
      : compileBase(node, name);
  const property: Record<string, unknown> = { type: base.type };
  if (annotations.title !== undefined) property.title = annotations.title;
  if (annotations.description !== undefined) property.description = annotations.description;
  Object.assign(property, base.constraints);
  // A default above a transform is a transformed value, which the client cannot be shown; it still applies.
  const sendable =
    defaultLayer !== undefined && defaultLayer.transformsAbove === transforms ? defaultLayer : undefined;
  const wireDefault =
    base.choiceField !== undefined ? choiceDefault(base.choiceField, sendable, name) : sendable?.value;
  if (wireDefault !== undefined) {
    checkDefault(field, base, wireDefault, name, sendable === undefined);
    property.default = wireDefault;
  }
  Object.assign(property, base.options);
  const compiled: CompiledField = { property: property as unknown as FormPropertySchema };
  return base.choiceField !== undefined && sendable !== undefined
    ? { ...compiled, defaultTokens: wireDefault as string | string[] }
    : compiled;
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const entry of Object.values(value)) deepFreeze(entry);
    Object.freeze(value);
  }
  return value;
}

const compiledForms = new WeakMap<object, CompiledForm>();

/**
 * Compiles a zod 4 object schema to an ACP form-mode `requestedSchema`, or refuses it. Each property becomes one
 * field: `z.string()` (with `.min()` / `.max()` / `.length()` lengths, one regular expression as `pattern`, the
 * formats `.email()` / `.url()` / `z.iso.date()` / `z.iso.datetime()`), `z.number()`, `z.int()` / `.int()` (with
 * inclusive bounds), `z.boolean()`, `z.enum` / `z.literal` strings (a single-select titled with the values),
 * `z.array(z.enum(...))` (a multi-select with `.min()` / `.max()` item counts), and {@link choiceField} /
 * {@link choicesField}. `title` and `description` come from `.meta()` / `.describe()`; `default` from `.default()`;
 * `required` lists the properties that are neither `.optional()` nor defaulted. `.refine()` and transforms after a
 * field are allowed: they run on the answer. Pure and cached: the same schema object compiles once.
 *
 * @throws {@link FormSchemaError} naming the property and the construct when the schema uses one ACP forms cannot
 * express (nested objects, records, unions, tuples, `.nullable()`, `.catch()`, `z.coerce`, exclusive bounds on
 * non-integers, `.multipleOf()`, two regular expressions, regex flags, non-string enum values, an invalid default).
 * @example
 * ```ts
 * import { compileForm } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const form = compileForm(
 *   z.object({
 *     name: z.string().min(3).meta({ title: 'Release name' }),
 *     replicas: z.int().min(1).max(5).default(2),
 *     notify: z.boolean().optional(),
 *   }),
 * );
 * form.requestedSchema.required; // ['name']
 * ```
 */
export function compileForm<Form extends FormObjectSchema>(
  schema: Form & FormSchemaCheck<Form>,
): CompiledForm<Form> {
  const cached = compiledForms.get(schema);
  if (cached !== undefined) return cached as CompiledForm<Form>;
  if (!isZodSchema(schema) || schema._zod.def.type !== 'object') {
    throw refuse(
      FormSchemaErrorCode.NotAnObjectSchema,
      '',
      isZodSchema(schema) ? schema._zod.def.type : typeof schema,
      'is not a zod 4 object schema; pass z.object({ ... }) from zod 4 (one form field per property)',
    );
  }
  refuseChecksOtherThanValidation(schema, '');
  const shape = (schema._zod.def as z.core.$ZodObjectDef).shape;
  const annotations: Annotations = {};
  annotate(annotations, schema);
  const properties: Record<string, FormPropertySchema> = {};
  const required: string[] = [];
  const defaultTokens: Record<string, string | readonly string[]> = {};
  for (const [name, field] of Object.entries(shape)) {
    const compiledField = compileField(name, field);
    properties[name] = compiledField.property;
    if (compiledField.defaultTokens !== undefined) defaultTokens[name] = compiledField.defaultTokens;
    // zod's own optionality: `optional` and `defaulted` inputs may be left out.
    if (field._zod.optin === undefined) required.push(name);
  }
  const requestedSchema: FormRequestedSchema = { type: 'object' } as FormRequestedSchema;
  if (annotations.title !== undefined) requestedSchema.title = annotations.title;
  if (annotations.description !== undefined) requestedSchema.description = annotations.description;
  if (required.length > 0) requestedSchema.required = required;
  requestedSchema.properties = properties;
  const compiled: CompiledForm<Form> = Object.freeze({
    schema,
    requestedSchema: deepFreeze(requestedSchema),
    fieldNames: Object.freeze(Object.keys(shape)),
    defaultTokens: deepFreeze(defaultTokens),
  });
  compiledForms.set(schema, compiled);
  return compiled;
}
