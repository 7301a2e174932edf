// The form a client shows for an elicitation's `requestedSchema`: fields read from the schema, never throwing.
import { CHOICE_DESCRIPTION_META_KEY } from '@acpkit/choice-schema';

/** One option of a single- or multi-choice field. */
export interface ChoiceOption {
  /** The token sent back to the agent (`const` or `enum` value). */
  readonly value: string;
  /** What the person sees (`title`, else the value). */
  readonly label: string;
  /** The option's `description`, else the `acpkit.dev/choice-description` `_meta` value. */
  readonly description?: string;
}

interface FieldBase {
  /** Property name in `requestedSchema.properties` (the key of the answer in `content`). */
  readonly name: string;
  /** The property's `title`, else its name. */
  readonly label: string;
  readonly description?: string;
  /** Listed in the schema's `required`. */
  readonly required: boolean;
}

/** A string field with `oneOf` or `enum`: the person picks exactly one option. */
export interface SingleChoiceField extends FieldBase {
  readonly kind: 'single-choice';
  readonly options: readonly ChoiceOption[];
  /** The schema `default`, only when it names one of the options. */
  readonly defaultValue?: string;
}

/** An `array` field with `items.enum` or `items.anyOf`: the person picks several options. */
export interface MultiChoiceField extends FieldBase {
  readonly kind: 'multi-choice';
  readonly options: readonly ChoiceOption[];
  readonly defaultValue?: readonly string[];
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** Free text, optionally constrained by length, `pattern` and `format`. */
export interface TextField extends FieldBase {
  readonly kind: 'text';
  readonly defaultValue?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
}

/** A `number` or `integer` field. */
export interface NumberField extends FieldBase {
  readonly kind: 'number';
  readonly integer: boolean;
  readonly defaultValue?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A yes/no field. */
export interface BooleanField extends FieldBase {
  readonly kind: 'boolean';
  readonly defaultValue?: boolean;
}

/** A property type this client cannot render (a vendor `_x` type or a malformed property). */
export interface UnsupportedField extends FieldBase {
  readonly kind: 'unsupported';
  readonly type: string;
}

/** One renderable field of a form-mode elicitation. */
export type FormField =
  | SingleChoiceField
  | MultiChoiceField
  | TextField
  | NumberField
  | BooleanField
  | UnsupportedField;

/** A value the client can put into `content` for one field. */
export type FieldValue = string | number | boolean | string[];

/**
 * A field's schema default as a value for `content` (a list is copied, so editing it leaves the form model alone), or
 * `undefined` when the field has none. What `--yes`, a script that leaves the field out and the interactive prompts
 * all start from.
 *
 * @example
 * ```ts
 * fieldDefault(readForm({ properties: { n: { type: 'integer', default: 2 } } }).fields[0]!); // 2
 * ```
 */
export function fieldDefault(field: FormField): FieldValue | undefined {
  if (field.kind === 'unsupported' || field.defaultValue === undefined) return undefined;
  return field.kind === 'multi-choice' ? [...field.defaultValue] : field.defaultValue;
}

type UnknownRecord = Record<string, unknown>;

function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function optionalCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function describeOption(option: UnknownRecord): string | undefined {
  const description = optionalString(option.description);
  if (description !== undefined) return description;
  const meta = option._meta;
  return isRecord(meta) ? optionalString(meta[CHOICE_DESCRIPTION_META_KEY]) : undefined;
}

/** Options from `oneOf`/`anyOf` (`{const,title,description?}`) or a plain `enum` list. */
function readOptions(titled: unknown, plain: unknown): ChoiceOption[] | undefined {
  if (Array.isArray(titled)) {
    const options: ChoiceOption[] = [];
    for (const entry of titled) {
      if (!isRecord(entry) || typeof entry.const !== 'string') continue;
      const description = describeOption(entry);
      options.push({
        value: entry.const,
        label: optionalString(entry.title) ?? entry.const,
        ...(description === undefined ? {} : { description }),
      });
    }
    return options;
  }
  if (Array.isArray(plain)) {
    return plain
      .filter((entry): entry is string => typeof entry === 'string')
      .map((value) => ({ value, label: value }));
  }
  return undefined;
}

function readField(name: string, property: unknown, required: boolean): FormField {
  if (!isRecord(property)) return { kind: 'unsupported', name, label: name, required, type: 'invalid' };
  const label = optionalString(property.title) ?? name;
  const description = optionalString(property.description);
  const base = { name, label, required, ...(description === undefined ? {} : { description }) };
  switch (property.type) {
    case 'string': {
      const options = readOptions(property.oneOf, property.enum);
      if (options !== undefined) {
        const defaultValue = options.find((option) => option.value === property.default)?.value;
        return {
          kind: 'single-choice',
          ...base,
          options,
          ...(defaultValue === undefined ? {} : { defaultValue }),
        };
      }
      const field: TextField = {
        kind: 'text',
        ...base,
        defaultValue: optionalString(property.default) ?? (property.default === '' ? '' : undefined),
        minLength: optionalCount(property.minLength),
        maxLength: optionalCount(property.maxLength),
        pattern: optionalString(property.pattern),
        format: optionalString(property.format),
      };
      return dropUndefined(field);
    }
    case 'number':
    case 'integer':
      return dropUndefined<NumberField>({
        kind: 'number',
        ...base,
        integer: property.type === 'integer',
        defaultValue: optionalNumber(property.default),
        minimum: optionalNumber(property.minimum),
        maximum: optionalNumber(property.maximum),
      });
    case 'boolean':
      return dropUndefined<BooleanField>({
        kind: 'boolean',
        ...base,
        defaultValue: typeof property.default === 'boolean' ? property.default : undefined,
      });
    case 'array': {
      const items = isRecord(property.items) ? property.items : {};
      const options = readOptions(items.anyOf, items.enum);
      if (options === undefined) return { kind: 'unsupported', ...base, type: 'array' };
      const known = new Set(options.map((option) => option.value));
      const defaultValue = Array.isArray(property.default)
        ? property.default.filter((value): value is string => typeof value === 'string' && known.has(value))
        : undefined;
      return dropUndefined<MultiChoiceField>({
        kind: 'multi-choice',
        ...base,
        options,
        defaultValue,
        minItems: optionalCount(property.minItems),
        maxItems: optionalCount(property.maxItems),
      });
    }
    default:
      return {
        kind: 'unsupported',
        ...base,
        type: typeof property.type === 'string' ? property.type : 'invalid',
      };
  }
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** A form-mode `requestedSchema` read into the fields the client renders, in schema order. */
export interface FormModel {
  readonly title?: string;
  readonly description?: string;
  readonly fields: readonly FormField[];
}

/**
 * Reads a form-mode `requestedSchema` into renderable fields. It never throws: malformed properties become
 * `unsupported` fields so the caller can decline instead of crashing.
 *
 * @example
 * ```ts
 * const model = readForm({ type: 'object', properties: { target: { type: 'string', enum: ['a', 'b'] } } });
 * model.fields[0]?.kind; // 'single-choice'
 * ```
 */
export function readForm(schema: unknown): FormModel {
  const record: UnknownRecord = isRecord(schema) ? schema : {};
  const required = new Set(
    Array.isArray(record.required) ? record.required.filter((name) => typeof name === 'string') : [],
  );
  const properties = isRecord(record.properties) ? record.properties : {};
  const fields = Object.entries(properties).map(([name, property]) =>
    readField(name, property, required.has(name)),
  );
  const title = optionalString(record.title);
  const description = optionalString(record.description);
  return {
    fields,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
  };
}

/** True when the form is one single-choice field, which the client renders as one select with a Decline entry. */
export function isSingleChoiceForm(model: FormModel): model is FormModel & { fields: [SingleChoiceField] } {
  return model.fields.length === 1 && model.fields[0]?.kind === 'single-choice';
}
