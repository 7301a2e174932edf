// What one field compiles to before its title, description and default: the dispatch over zod's field kinds.
import { compileChoiceOptions } from '@acpkit/choice-schema';
import type { z } from 'zod';
import type { ChoiceFieldDefinition } from './choice-field.js';
import {
  compileItemCounts,
  compileNumber,
  compileString,
  refuseCoercion,
  stringValues,
  titledValues,
} from './compile-scalar-fields.js';
import { constructPhrase } from './construct-phrase.js';
import { FormSchemaErrorCode } from './errors.js';
import type { FormPropertySchema } from './form-wire-types.js';
import { type Constraints, refuse, refuseChecksOtherThanValidation, type Schema } from './zod-inspection.js';

/** The outermost `.default()` / `.prefault()` of a field, and how many transforms lie above it. */
export interface DefaultLayer {
  readonly kind: 'default' | 'prefault';
  readonly value: unknown;
  readonly inner: Schema;
  readonly transformsAbove: number;
}

/** What one field compiles to before its title, description and default are added. */
export interface Base {
  readonly type: FormPropertySchema['type'];
  readonly constraints: Constraints;
  /** `oneOf` (single-select) or `items` (multi-select). */
  readonly options?: Constraints;
  readonly choiceField?: ChoiceFieldDefinition;
  /** The enum values a `z.enum` multi-select default must come from. */
  readonly multiSelectValues?: readonly string[];
}

export function compileChoiceField(pipe: Schema, definition: ChoiceFieldDefinition, path: string): Base {
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

export function compileBase(schema: Schema, path: string): Base {
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
