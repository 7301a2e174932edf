// The rules every client applies to a person's answer before it is sent: lengths, patterns, formats, bounds, options.
// zod/mini: the same checks as classic zod, but tree-shakable, so the web page ships only what these rules use.
import * as z from 'zod/mini';
import type { FieldValue, FormField, NumberField, TextField } from './form-model.js';

/**
 * Longest `pattern` the client evaluates. JavaScript regular expressions cannot be interrupted, and the spec asks
 * readers to bound pattern evaluation, so longer patterns and inputs are not checked here (the agent re-validates).
 */
export const MAX_PATTERN_LENGTH = 512;
/** Longest input a `pattern` is tested against, for the same reason. */
export const MAX_PATTERN_INPUT_LENGTH = 4096;

/** Compiles a schema `pattern` (ECMA-262, unanchored), or returns undefined when it is too long or invalid. */
export function compilePattern(pattern: string): RegExp | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

/**
 * What a typed or scripted number may look like: an optional minus, then a whole part without leading zeros, then
 * optionally a dot and digits (`3`, `-2`, `0.25`, `10.50`). Nothing else that JavaScript's `Number()` would read
 * (`0x3`, `3e0`, `+3`, `03`, `.5`, `Infinity`, surrounding spaces) is taken: an answer means what it plainly says.
 */
const DECIMAL_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** Said when a text is not a number by {@link parseDecimal}'s rule. */
export const NOT_A_DECIMAL_NUMBER = 'a decimal number such as 3, -2 or 0.25';

/**
 * Reads plain decimal text (see `DECIMAL_NUMBER`) as a number; `undefined` for any other text, and for a number too
 * large to be finite.
 *
 * @example
 * ```ts
 * parseDecimal('0.25'); // 0.25
 * parseDecimal('0x3'); // undefined
 * ```
 */
export function parseDecimal(text: string): number | undefined {
  if (!DECIMAL_NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** JSON Schema counts string length in code points, not UTF-16 units. */
function codePointLength(value: string): number {
  return [...value].length;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

const formatSchemas: Record<string, { schema: z.ZodMiniType<string>; message: string }> = {
  email: { schema: z.email(), message: 'Enter a valid email address.' },
  uri: { schema: z.url(), message: 'Enter a valid absolute URI, such as https://example.com/.' },
  date: { schema: z.iso.date(), message: 'Enter a date as YYYY-MM-DD.' },
  'date-time': {
    schema: z.iso.datetime({ offset: true }),
    message: 'Enter a date and time as YYYY-MM-DDTHH:MM:SSZ (or with an offset).',
  },
};

function textSchema(field: TextField): z.ZodMiniType<string> {
  const schema = z.string({ error: 'Enter text.' });
  const checks: z.core.$ZodCheck<string>[] = [];
  const { minLength, maxLength, pattern, format } = field;
  if (minLength !== undefined) {
    checks.push(
      z.refine((value: string) => codePointLength(value) >= minLength, {
        error: `Enter at least ${plural(minLength, 'character')}.`,
      }),
    );
  }
  if (maxLength !== undefined) {
    checks.push(
      z.refine((value: string) => codePointLength(value) <= maxLength, {
        error: `Enter at most ${plural(maxLength, 'character')}.`,
      }),
    );
  }
  // The format first: "Enter a date as YYYY-MM-DD." says more to a person than the pattern that may come with it.
  const formatCheck = format === undefined ? undefined : formatSchemas[format];
  if (formatCheck !== undefined) {
    checks.push(
      z.refine((value: string) => formatCheck.schema.safeParse(value).success, {
        error: formatCheck.message,
        abort: true,
      }),
    );
  }
  const expression = pattern === undefined ? undefined : compilePattern(pattern);
  if (expression !== undefined) {
    const matches = (value: string) => value.length > MAX_PATTERN_INPUT_LENGTH || expression.test(value);
    checks.push(
      z.refine(matches, {
        error: (issue) => {
          const hint = format === 'date-time' ? sameTimeThatFits(String(issue.input), matches) : undefined;
          return hint === undefined
            ? `Must match the pattern ${pattern}.`
            : `This agent takes the time in another form: ${hint} (the same time in UTC) fits.`;
        },
      }),
    );
  }
  return checks.length === 0 ? schema : schema.check(...checks);
}

/**
 * For a valid date-time the field's pattern refuses (an agent whose `z.iso.datetime()` takes only `Z`, or a fixed
 * number of fraction digits), the same instant written in UTC in a form the pattern accepts, if there is one.
 */
function sameTimeThatFits(value: string, matches: (value: string) => boolean): string | undefined {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return undefined;
  const withMilliseconds = time.toISOString();
  const candidates = [withMilliseconds.replace(/\.000Z$/, 'Z'), withMilliseconds];
  return candidates.find(matches);
}

function numberSchema(field: NumberField): z.ZodMiniType<number> {
  const checks: z.core.$ZodCheck<number>[] = [
    z.refine((value: number) => Number.isFinite(value), { error: 'Enter a finite number.' }),
  ];
  if (field.integer) {
    checks.push(z.refine((value: number) => Number.isInteger(value), { error: 'Enter a whole number.' }));
  }
  const { minimum, maximum } = field;
  if (minimum !== undefined) {
    checks.push(z.refine((value: number) => value >= minimum, { error: `Must be at least ${minimum}.` }));
  }
  if (maximum !== undefined) {
    checks.push(z.refine((value: number) => value <= maximum, { error: `Must be at most ${maximum}.` }));
  }
  return z.number({ error: 'Enter a number.' }).check(...checks);
}

/** The zod schema that a present (non-empty) value of `field` must satisfy. */
function fieldSchema(field: FormField): z.ZodMiniType<FieldValue> | undefined {
  switch (field.kind) {
    case 'text':
      return textSchema(field);
    case 'number':
      return numberSchema(field);
    case 'boolean':
      return z.boolean({ error: 'Answer yes or no.' });
    case 'single-choice': {
      const values = new Set(field.options.map((option) => option.value));
      return z
        .string()
        .check(
          z.refine((value: string) => values.has(value), { error: 'Choose one of the offered options.' }),
        );
    }
    case 'multi-choice': {
      const values = new Set(field.options.map((option) => option.value));
      const checks: z.core.$ZodCheck<string[]>[] = [
        z.refine((selected: string[]) => selected.every((value) => values.has(value)), {
          error: 'Choose only offered options.',
        }),
        z.refine((selected: string[]) => new Set(selected).size === selected.length, {
          error: 'Choose each option once.',
        }),
      ];
      const { minItems, maxItems } = field;
      if (minItems !== undefined) {
        checks.push(
          z.refine((selected: string[]) => selected.length >= minItems, {
            error: `Choose at least ${plural(minItems, 'option')}.`,
          }),
        );
      }
      if (maxItems !== undefined) {
        checks.push(
          z.refine((selected: string[]) => selected.length <= maxItems, {
            error: `Choose at most ${plural(maxItems, 'option')}.`,
          }),
        );
      }
      return z.array(z.string()).check(...checks);
    }
    case 'unsupported':
      return undefined;
  }
}

/**
 * Checks one answer against its field: `required`, lengths, `pattern`, `format`, bounds, option membership and
 * item counts. Returns the first problem as a sentence for the person, or undefined when the value is acceptable.
 * `undefined` stands for "left empty".
 *
 * @example
 * ```ts
 * validateFieldValue({ kind: 'number', name: 'replicas', label: 'Replicas', required: true, integer: true, minimum: 1 }, 0);
 * // 'Must be at least 1.'
 * ```
 */
export function validateFieldValue(field: FormField, value: FieldValue | undefined): string | undefined {
  if (value === undefined) return field.required ? `${field.label} is required.` : undefined;
  const schema = fieldSchema(field);
  if (schema === undefined) return `${field.label} has a type this client cannot show.`;
  const result = schema.safeParse(value);
  return result.success ? undefined : (result.error.issues[0]?.message ?? 'Invalid value.');
}

/** Result of reading a typed line into a field value. */
export type ParsedInput = { readonly value: FieldValue | undefined } | { readonly error: string };

/**
 * Turns what the person typed into a field value (empty input means "left empty") and validates it.
 *
 * @example
 * ```ts
 * parseFieldInput({ kind: 'number', name: 'n', label: 'N', required: false, integer: true }, '3');
 * // { value: 3 }
 * ```
 */
export function parseFieldInput(field: TextField | NumberField, input: string): ParsedInput {
  let value: FieldValue | undefined;
  if (field.kind === 'text') {
    value = input === '' ? undefined : input;
  } else {
    // A person's stray spaces around the number are forgiven; the number itself follows the scripted rule.
    const trimmed = input.trim();
    if (trimmed !== '') {
      value = parseDecimal(trimmed);
      if (value === undefined) return { error: 'Enter a decimal number, such as 3, -2 or 0.25.' };
    }
  }
  const error = validateFieldValue(field, value);
  return error === undefined ? { value } : { error };
}
