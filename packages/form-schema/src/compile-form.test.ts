import { AcpKitError, ChoiceValidationError } from '@acpkit/choice-schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FIELD_CASES, formOfAllCases } from '../test/support/form-cases.js';
import { choiceField, choicesField } from './choice-field.js';
import { compileForm } from './compile-form.js';
import { FormSchemaError } from './errors.js';

/** Compiles a schema the type checker would refuse, to prove the run-time check refuses it too. */
function compileUnchecked(schema: unknown) {
  return compileForm(schema as never);
}

const UNICODE_SETS_FLAG = 'v';

function refusal(schema: unknown): FormSchemaError {
  try {
    compileUnchecked(schema);
  } catch (error) {
    expect(FormSchemaError.isInstance(error), String(error)).toBe(true);
    expect(AcpKitError.isInstance(error)).toBe(true);
    return error as FormSchemaError;
  }
  throw new Error('expected a FormSchemaError');
}

describe('compileForm: construct → wire property', () => {
  it.each(FIELD_CASES.map((fieldCase) => [fieldCase.name, fieldCase] as const))('%s', (_name, fieldCase) => {
    const form = compileUnchecked(z.object({ field: fieldCase.field }));
    expect(form.requestedSchema.properties.field).toStrictEqual(fieldCase.property);
    // Key order is part of the wire form: type, title, description, constraints, default, options.
    expect(JSON.stringify(form.requestedSchema.properties.field)).toBe(JSON.stringify(fieldCase.property));
    expect(form.requestedSchema.required ?? []).toEqual(fieldCase.required ? ['field'] : []);
  });

  it('compiles every case together, required in schema order, with the object title and description', () => {
    const schema = formOfAllCases().meta({ title: 'Everything', description: 'All constructs.' });
    const form = compileUnchecked(schema);
    expect(Object.keys(form.requestedSchema)).toEqual([
      'type',
      'title',
      'description',
      'required',
      'properties',
    ]);
    expect(form.requestedSchema.type).toBe('object');
    expect(form.requestedSchema.title).toBe('Everything');
    expect(form.requestedSchema.description).toBe('All constructs.');
    expect(form.requestedSchema.required).toEqual(
      FIELD_CASES.flatMap((fieldCase, index) => (fieldCase.required ? [`field${index}`] : [])),
    );
    expect(form.fieldNames).toEqual(FIELD_CASES.map((_fieldCase, index) => `field${index}`));
  });

  it('leaves out required when every field is optional, and accepts an empty form', () => {
    expect(compileForm(z.object({ note: z.string().optional() })).requestedSchema).toStrictEqual({
      type: 'object',
      properties: { note: { type: 'string' } },
    });
    expect(compileForm(z.object({})).requestedSchema).toStrictEqual({ type: 'object', properties: {} });
  });

  it('accepts strict and loose objects and an object-level .refine()', () => {
    for (const schema of [
      z.strictObject({ a: z.string() }),
      z.looseObject({ a: z.string() }),
      z.object({ a: z.string(), b: z.string() }).refine((value) => value.a !== value.b),
    ]) {
      expect(compileUnchecked(schema).requestedSchema.required).toEqual([
        'a',
        ...('b' in schema.shape ? ['b'] : []),
      ]);
    }
  });

  it('compiles a schema object once and returns the same frozen form', () => {
    const schema = z.object({ name: z.string(), tags: z.array(z.enum(['a'])) });
    const form = compileForm(schema);
    expect(compileForm(schema)).toBe(form);
    expect(Object.isFrozen(form.requestedSchema)).toBe(true);
    expect(Object.isFrozen(form.requestedSchema.properties.tags)).toBe(true);
    expect(() => {
      (form.requestedSchema.properties as Record<string, unknown>).name = { type: 'boolean' };
    }).toThrow(TypeError);
    // An equal but distinct schema object compiles on its own.
    expect(compileForm(z.object({ name: z.string(), tags: z.array(z.enum(['a'])) }))).not.toBe(form);
  });

  it('never puts choice values on the wire', () => {
    const secret = { path: '/srv/secret' };
    const form = compileForm(
      z.object({
        one: choiceField([{ value: secret, label: 'Secret', default: true }]),
        many: choicesField([{ value: secret, label: 'Secret', default: true }]).default([secret]),
      }),
    );
    expect(JSON.stringify(form.requestedSchema)).not.toContain('/srv/secret');
  });
});

describe('compileForm: refused constructs', () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, string, string]> = [
    ['a string schema', z.string(), 'NOT_AN_OBJECT_SCHEMA', '', 'string'],
    ['a plain object', { name: z.string() }, 'NOT_AN_OBJECT_SCHEMA', '', 'object'],
    [
      'an object with a transform',
      z.object({ a: z.string() }).transform((value) => value),
      'NOT_AN_OBJECT_SCHEMA',
      '',
      'pipe',
    ],
    [
      'a nested object',
      z.object({ owner: z.object({ name: z.string() }) }),
      'NESTED_OBJECT',
      'owner',
      'object',
    ],
    [
      'an optional nested object',
      z.object({ owner: z.object({}).optional() }),
      'NESTED_OBJECT',
      'owner',
      'object',
    ],
    [
      'a record',
      z.object({ labels: z.record(z.string(), z.string()) }),
      'UNSUPPORTED_TYPE',
      'labels',
      'record',
    ],
    ['a tuple', z.object({ pair: z.tuple([z.string(), z.string()]) }), 'UNSUPPORTED_TYPE', 'pair', 'tuple'],
    ['a union', z.object({ id: z.union([z.string(), z.number()]) }), 'UNSUPPORTED_TYPE', 'id', 'union'],
    [
      'a union of objects',
      z.object({
        target: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('a') }),
          z.object({ kind: z.literal('b') }),
        ]),
      }),
      'UNSUPPORTED_TYPE',
      'target',
      'union',
    ],
    [
      'an intersection',
      z.object({ both: z.intersection(z.string(), z.string()) }),
      'UNSUPPORTED_TYPE',
      'both',
      'intersection',
    ],
    ['a date', z.object({ when: z.date() }), 'UNSUPPORTED_TYPE', 'when', 'date'],
    ['a bigint', z.object({ count: z.bigint() }), 'UNSUPPORTED_TYPE', 'count', 'bigint'],
    ['a map', z.object({ map: z.map(z.string(), z.string()) }), 'UNSUPPORTED_TYPE', 'map', 'map'],
    ['a set', z.object({ set: z.set(z.string()) }), 'UNSUPPORTED_TYPE', 'set', 'set'],
    ['z.any()', z.object({ anything: z.any() }), 'UNSUPPORTED_TYPE', 'anything', 'any'],
    ['z.unknown()', z.object({ anything: z.unknown() }), 'UNSUPPORTED_TYPE', 'anything', 'unknown'],
    ['z.lazy()', z.object({ later: z.lazy(() => z.string()) }), 'UNSUPPORTED_TYPE', 'later', 'lazy'],
    ['z.custom()', z.object({ thing: z.custom<string>() }), 'UNSUPPORTED_TYPE', 'thing', 'custom'],
    [
      'z.templateLiteral()',
      z.object({ id: z.templateLiteral(['v', z.number()]) }),
      'UNSUPPORTED_TYPE',
      'id',
      'template_literal',
    ],
    ['.nullable()', z.object({ name: z.string().nullable() }), 'NULLABLE', 'name', 'nullable'],
    ['.nullish()', z.object({ name: z.string().nullish() }), 'NULLABLE', 'name', 'nullable'],
    ['.catch()', z.object({ name: z.string().catch('x') }), 'UNSUPPORTED_TYPE', 'name', 'catch'],
    ['z.coerce.number()', z.object({ count: z.coerce.number() }), 'UNSUPPORTED_TYPE', 'count', 'coerce'],
    ['z.coerce.string()', z.object({ name: z.coerce.string() }), 'UNSUPPORTED_TYPE', 'name', 'coerce'],
    ['z.coerce.boolean()', z.object({ yes: z.coerce.boolean() }), 'UNSUPPORTED_TYPE', 'yes', 'coerce'],
    [
      'z.preprocess()',
      z.object({ n: z.preprocess((value) => value, z.string()) }),
      'UNSUPPORTED_TRANSFORM',
      'n',
      'transform',
    ],
    [
      'a bare transform',
      z.object({ n: z.transform((value) => value) }),
      'UNSUPPORTED_TRANSFORM',
      'n',
      'transform',
    ],
    [
      'a transform of an object',
      z.object({ n: z.object({}).transform(() => 1) }),
      'NESTED_OBJECT',
      'n',
      'object',
    ],
    ['an array of strings', z.object({ tags: z.array(z.string()) }), 'UNSUPPORTED_TYPE', 'tags[]', 'string'],
    [
      'an array of optional enums',
      z.object({ tags: z.array(z.enum(['a']).optional()) }),
      'UNSUPPORTED_TYPE',
      'tags[]',
      'optional',
    ],
    [
      'an array of choice fields',
      z.object({ tags: z.array(choiceField([{ value: 1, label: 'One' }])) }),
      'UNSUPPORTED_TYPE',
      'tags[]',
      'pipe',
    ],
    ['a numeric literal', z.object({ n: z.literal(1) }), 'NON_STRING_ENUM', 'n', 'literal'],
    ['a boolean literal', z.object({ n: z.literal(true) }), 'NON_STRING_ENUM', 'n', 'literal'],
    [
      'an array of numeric literals',
      z.object({ n: z.array(z.literal([1, 2])) }),
      'NON_STRING_ENUM',
      'n[]',
      'literal',
    ],
    ['.gt() on a number', z.object({ ratio: z.number().gt(0) }), 'EXCLUSIVE_BOUND', 'ratio', 'greater_than'],
    [
      '.positive() on a number',
      z.object({ ratio: z.number().positive() }),
      'EXCLUSIVE_BOUND',
      'ratio',
      'greater_than',
    ],
    ['.lt() on a number', z.object({ ratio: z.number().lt(1) }), 'EXCLUSIVE_BOUND', 'ratio', 'less_than'],
    ['.multipleOf()', z.object({ step: z.int().multipleOf(5) }), 'UNSUPPORTED_CHECK', 'step', 'multiple_of'],
    [
      'two regexes',
      z.object({ name: z.string().regex(/^a/).regex(/b$/) }),
      'MULTIPLE_PATTERNS',
      'name',
      'regex+regex',
    ],
    [
      'a regex and .includes()',
      z.object({ name: z.string().regex(/^a/).includes('x') }),
      'MULTIPLE_PATTERNS',
      'name',
      'regex+includes',
    ],
    [
      'the i flag',
      z.object({ name: z.string().regex(/^abc$/i) }),
      'UNSUPPORTED_REGEX_FLAGS',
      'name',
      'regex',
    ],
    [
      'the m flag',
      z.object({ name: z.string().regex(/^abc$/m) }),
      'UNSUPPORTED_REGEX_FLAGS',
      'name',
      'regex',
    ],
    ['the s flag', z.object({ name: z.string().regex(/a.c/s) }), 'UNSUPPORTED_REGEX_FLAGS', 'name', 'regex'],
    ['the y flag', z.object({ name: z.string().regex(/abc/y) }), 'UNSUPPORTED_REGEX_FLAGS', 'name', 'regex'],
    [
      'the v flag',
      // Built at run time: a `v` literal needs an ES2024 target, and the flag is the point of the case.
      z.object({ name: z.string().regex(new RegExp('[\\p{L}--a]', UNICODE_SETS_FLAG)) }),
      'UNSUPPORTED_REGEX_FLAGS',
      'name',
      'regex',
    ],
    [
      'two ACP formats',
      z.object({ contact: z.email().check(z.url()) }),
      'MULTIPLE_FORMATS',
      'contact',
      'url',
    ],
    [
      'a format without a regular expression',
      z.object({ token: z.jwt() }),
      'UNSUPPORTED_CHECK',
      'token',
      'jwt',
    ],
    [
      'a minimum length above the maximum',
      z.object({ name: z.string().min(5).max(2) }),
      'IMPOSSIBLE_BOUNDS',
      'name',
      'length',
    ],
    [
      'a minimum above the maximum',
      z.object({ n: z.int().min(5).max(2) }),
      'IMPOSSIBLE_BOUNDS',
      'n',
      'value',
    ],
    [
      'more picks than options',
      z.object({ tags: z.array(z.enum(['a', 'b'])).min(3) }),
      'IMPOSSIBLE_BOUNDS',
      'tags',
      'item count',
    ],
    [
      'more picks than choices',
      z.object({ tags: choicesField([{ value: 1, label: 'One' }], { minItems: 2 }) }),
      'IMPOSSIBLE_BOUNDS',
      'tags',
      'item count',
    ],
    [
      'a default failing its own checks',
      z.object({ name: z.string().min(3).default('ab') }),
      'INVALID_DEFAULT',
      'name',
      'default',
    ],
    [
      'a non-integer default of an integer',
      z.object({ n: z.int().default(1.5) }),
      'INVALID_DEFAULT',
      'n',
      'default',
    ],
    [
      'a choice default that was not offered',
      z.object({ target: choiceField([{ value: { id: 1 }, label: 'One' }]).default({ id: 2 }) }),
      'INVALID_DEFAULT',
      'target',
      'default',
    ],
    [
      'a choices default with a value not offered',
      z.object({ tags: choicesField([{ value: 'a', label: 'A' }]).default(['b']) }),
      'INVALID_DEFAULT',
      'tags',
      'default',
    ],
    [
      'a .prefault() on a choice field',
      z.object({ target: choiceField([{ value: 'a', label: 'A' }]).prefault('choice_0') }),
      'INVALID_DEFAULT',
      'target',
      'default',
    ],
  ];

  it.each(cases)('refuses %s', (_name, schema, code, path, construct) => {
    const error = refusal(schema);
    expect({ code: error.code, path: error.path, construct: error.construct }).toEqual({
      code,
      path,
      construct,
    });
    expect(error.name).toBe('FormSchemaError');
    if (path !== '') expect(error.message).toContain(JSON.stringify(path));
  });

  it('says what to use instead', () => {
    expect(refusal(z.object({ a: z.string().nullable() })).message).toContain('.optional()');
    expect(refusal(z.object({ a: z.number().gt(0) })).message).toContain('.min()');
    expect(refusal(z.object({ a: z.array(z.string()) })).message).toContain('choicesField');
    expect(refusal(z.object({ a: z.literal(2) })).message).toContain('choiceField');
    expect(refusal(z.object({ a: z.string().regex(/a/i) })).message).toContain('[Aa]');
  });

  it('refuses a zod 3 style schema and non-objects as not an object schema', () => {
    for (const value of [null, undefined, 'z.object', 42, { _def: { typeName: 'ZodObject' }, shape: {} }]) {
      expect(refusal(value).code).toBe('NOT_AN_OBJECT_SCHEMA');
    }
  });
});

describe('choice fields', () => {
  it('validate their choices when made', () => {
    expect(() => choiceField([])).toThrow(expect.objectContaining({ code: 'EMPTY_CHOICES' }));
    expect(() => choiceField([{ value: 1, label: '' }])).toThrow(
      expect.objectContaining({ code: 'BLANK_LABEL' }),
    );
    expect(() =>
      choiceField([
        { value: 1, label: 'One', default: true },
        { value: 2, label: 'Two', default: true },
      ]),
    ).toThrow(expect.objectContaining({ code: 'MULTIPLE_DEFAULTS' }));
    expect(() =>
      choicesField([
        { value: 1, label: 'One', default: true },
        { value: 2, label: 'Two', default: true },
      ]),
    ).not.toThrow();
    try {
      choicesField([]);
    } catch (error) {
      expect(ChoiceValidationError.isInstance(error)).toBe(true);
    }
  });

  it('keep the choices as given when the field was made', () => {
    const choices = [{ value: 'a', label: 'A' }];
    const field = choiceField(choices);
    choices.push({ value: 'b', label: 'B' });
    const options = compileForm(z.object({ field })).requestedSchema.properties.field;
    expect(options).toStrictEqual({ type: 'string', oneOf: [{ const: 'choice_0', title: 'A' }] });
  });
});

describe('defaults are checked against their own field (INVALID_DEFAULT)', () => {
  const three = [
    { value: 1, label: 'One', default: true },
    { value: 2, label: 'Two', default: true },
    { value: 3, label: 'Three' },
  ] as const;
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    [
      'more choices marked default than maxItems',
      z.object({ c: choicesField(three, { maxItems: 1 }) }),
      'maxItems 1',
    ],
    [
      'fewer choices marked default than minItems',
      z.object({ c: choicesField(three, { minItems: 3 }) }),
      'minItems 3',
    ],
    [
      'a choices .default() above maxItems',
      z.object({ c: choicesField(three, { maxItems: 1 }).default([1, 2]) }),
      'maxItems 1',
    ],
    [
      'a choices .default() below minItems',
      z.object({ c: choicesField(three, { minItems: 2 }).default([3]) }),
      'minItems 2',
    ],
    [
      'an enum multi-select .default() above .max()',
      z.object({
        c: z
          .array(z.enum(['a', 'b']))
          .max(1)
          .default(['a', 'b']),
      }),
      'maxItems 1',
    ],
    [
      'a string default failing its pattern',
      z.object({
        s: z
          .string()
          .regex(/^v\d+$/)
          .default('1.0'),
      }),
      'pattern',
    ],
    ['a string default too long', z.object({ s: z.string().max(2).default('abc') }), 'Too big'],
    ['a string default that is not an email', z.object({ s: z.email().default('nobody') }), 'email'],
    ['a number default above its maximum', z.object({ n: z.number().max(1).default(2) }), 'Too big'],
    ['an integer default below its minimum', z.object({ n: z.int().min(1).default(0) }), 'Too small'],
    [
      'a default failing a check after it (a pipe)',
      z.object({ s: z.string().default('ab').pipe(z.string().min(3)) }),
      'Too small',
    ],
    [
      'a default failing a refinement outside it',
      z.object({
        s: z
          .string()
          .default('admin')
          .refine((value) => value !== 'admin', 'not admin'),
      }),
      'not admin',
    ],
    [
      'a choice marked default that a refinement refuses',
      z.object({ c: choiceField(three.slice(1)).refine((value) => value !== 2, 'not two') }),
      'not two',
    ],
  ];

  it.each(cases)('refuses %s', (_name, schema, detail) => {
    const error = refusal(schema);
    expect(error.code).toBe('INVALID_DEFAULT');
    expect(error.construct).toBe('default');
    expect(error.message).toContain(detail);
  });

  it('still accepts defaults that fit, and does not check a default it does not send', () => {
    expect(
      compileForm(z.object({ c: choicesField(three, { minItems: 2, maxItems: 2 }) })).requestedSchema
        .properties.c,
    ).toMatchObject({ default: ['choice_0', 'choice_1'] });
    expect(
      compileForm(z.object({ c: choicesField(three, { maxItems: 2 }).optional() })).requestedSchema.properties
        .c,
    ).toMatchObject({ maxItems: 2, default: ['choice_0', 'choice_1'] });
    // No choice is marked default: nothing to check.
    expect(
      compileForm(z.object({ c: choicesField([{ value: 1, label: 'One' }], { minItems: 1 }) }))
        .requestedSchema.properties.c,
    ).not.toHaveProperty('default');
    // A default above a transform is a transformed value: applied, not sent, so not checked as an answer.
    expect(
      compileForm(
        z.object({
          s: z
            .string()
            .transform((value) => value.length)
            .default(99),
        }),
      ).requestedSchema.properties.s,
    ).toStrictEqual({ type: 'string' });
  });
});

describe('date-times: the client is told exactly what zod accepts', () => {
  const datetimePattern = (schema: z.core.$ZodType) => {
    const def = schema._zod.def as unknown as { check: string; pattern: RegExp };
    return def.pattern.source;
  };

  it("sends zod's own regular expression with the format when z.iso.datetime() accepts only UTC (no offset: true)", () => {
    const field = z.iso.datetime();
    const property = compileForm(z.object({ at: field })).requestedSchema.properties.at;
    expect(property).toStrictEqual({ type: 'string', pattern: datetimePattern(field), format: 'date-time' });
    const pattern = new RegExp((property as { pattern: string }).pattern, 'u');
    expect(pattern.test('2024-01-01T10:00:00Z')).toBe(true);
    expect(pattern.test('2024-01-01T10:00:00+02:00')).toBe(false);
  });

  it('sends the regular expression of a precision, and no format for a local date-time (it has no offset)', () => {
    const precise = z.iso.datetime({ offset: true, precision: 3 });
    expect(compileForm(z.object({ at: precise })).requestedSchema.properties.at).toStrictEqual({
      type: 'string',
      pattern: datetimePattern(precise),
      format: 'date-time',
    });
    const local = z.iso.datetime({ local: true });
    expect(compileForm(z.object({ at: local })).requestedSchema.properties.at).toStrictEqual({
      type: 'string',
      pattern: datetimePattern(local),
    });
  });

  it('sends only the format for z.iso.datetime({ offset: true }), which accepts what RFC 3339 date-time means', () => {
    expect(
      compileForm(z.object({ at: z.iso.datetime({ offset: true }) })).requestedSchema.properties.at,
    ).toStrictEqual({
      type: 'string',
      format: 'date-time',
    });
  });

  it('refuses a UTC-only date-time with a regex of its own, naming { offset: true }', () => {
    const error = refusal(z.object({ at: z.iso.datetime().regex(/^2024/) }));
    expect(error.code).toBe('MULTIPLE_PATTERNS');
    expect(error.message).toContain('{ offset: true }');
  });
});

describe('messages name the construct with the right article', () => {
  it.each([
    [z.any(), 'is z.any()'],
    [z.unknown(), 'is z.unknown()'],
    [z.undefined(), 'is z.undefined()'],
    [z.nan(), 'is z.nan()'],
    [z.intersection(z.string(), z.string()), 'is an intersection'],
    [z.record(z.string(), z.string()), 'is a record'],
    [z.union([z.string(), z.number()]), 'is a union'],
    [z.date(), 'is a date (z.date())'],
  ])('%#', (field, phrase) => {
    expect(refusal(z.object({ field })).message).toContain(`"field" ${phrase},`);
  });
});

describe('a z.date() property', () => {
  it('is pointed to the ISO string formats ACP forms carry dates in', () => {
    const error = refusal(z.object({ when: z.date() }));
    expect(error.code).toBe('UNSUPPORTED_TYPE');
    expect(error.message).toContain('z.iso.date()');
    expect(error.message).toContain('z.iso.datetime()');
  });
});
