// The scalar rules of the form compiler: strings (formats, patterns, lengths), numbers and integers, enum values
// and item counts, each to its JSON Schema constraints or a refusal naming the construct.
import type { ChoiceEnumOption } from '@acpkit/choice-schema';
import { z } from 'zod';
import { type FormSchemaError, FormSchemaErrorCode } from './errors.js';

import type { FormStringFormat } from './form-wire-types.js';
import {
  ACP_FORMATS,
  type Constraints,
  checkBounds,
  checksOf,
  foldLength,
  HARMLESS_REGEX_FLAGS,
  isValidationOnly,
  type LengthBounds,
  narrowerDateTime,
  refuse,
  type Schema,
  SENT_NUMBER_FORMAT_RANGES,
  unsupportedCheck,
} from './zod-inspection.js';

export function compileString(schema: Schema, path: string): Constraints {
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

export function compileNumber(schema: Schema, path: string): { integer: boolean; constraints: Constraints } {
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

export function refuseCoercion(path: string): FormSchemaError {
  return refuse(
    FormSchemaErrorCode.UnsupportedType,
    path,
    'coerce',
    'uses z.coerce, which would silently accept an answer of the wrong type; ACP answers are already typed: use ' +
      'z.string(), z.number() or z.boolean()',
  );
}

/** The string values of a `z.enum` / `z.literal`, or a refusal naming the first value that is not a string. */
export function stringValues(schema: Schema, path: string): string[] {
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

export function titledValues(values: readonly string[]): ChoiceEnumOption[] {
  return values.map((value) => ({ const: value, title: value }));
}

export function compileItemCounts(arrayNode: Schema, path: string, optionCount: number): Constraints {
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
