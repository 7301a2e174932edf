// The wire shapes of a compiled form: the JSON Schema properties ACP's form elicitation carries, and CompiledForm.
import type { ChoiceEnumOption } from '@acpkit/choice-schema';
import type { FormObjectSchema } from './form-types.js';

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
