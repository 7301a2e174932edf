// compileForm: a zod object schema to the form ACP's elicitation sends, field by field, frozen and cached per schema.
import type { z } from 'zod';
import { choiceFieldOf } from './choice-field.js';
import { compileBase, compileChoiceField, type DefaultLayer } from './compile-field-base.js';
import { FormSchemaError, FormSchemaErrorCode } from './errors.js';
import { checkDefault, choiceDefault } from './field-defaults.js';
import type { FormObjectSchema, FormSchemaCheck } from './form-types.js';
import type { CompiledForm, FormPropertySchema, FormRequestedSchema } from './form-wire-types.js';
import {
  type Annotations,
  annotate,
  isZodSchema,
  refuse,
  refuseChecksOtherThanValidation,
  type Schema,
} from './zod-inspection.js';

export type {
  CompiledForm,
  FormBooleanProperty,
  FormIntegerProperty,
  FormMultiSelectProperty,
  FormNumberProperty,
  FormPropertySchema,
  FormRequestedSchema,
  FormStringFormat,
  FormStringProperty,
} from './form-wire-types.js';

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
