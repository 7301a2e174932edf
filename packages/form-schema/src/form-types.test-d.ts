import type { ExactChoice } from '@acpkit/choice-schema';
import type * as sdk from '@agentclientprotocol/sdk';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { choiceField, choicesField } from './choice-field.js';
import { compileForm, type FormPropertySchema, type FormRequestedSchema } from './compile-form.js';
import { type FormElicitationParams, parseFormResponse } from './form-elicitation.js';
import type { FieldRefusal, FormSchemaCheck, FormValue } from './form-types.js';

describe('choice field types', () => {
  it('infers the offered values as the field output, tokens as its input', () => {
    const single = choiceField([
      { value: { id: 1 }, label: 'One' },
      { value: 'two', label: 'Two' },
    ] as const);
    expectTypeOf<z.output<typeof single>>().toEqualTypeOf<{ readonly id: 1 } | 'two'>();
    expectTypeOf<z.input<typeof single>>().toEqualTypeOf<string>();
    const multiple = choicesField([{ value: 1, label: 'One' }] as const);
    expectTypeOf<z.output<typeof multiple>>().toEqualTypeOf<1[]>();
    expectTypeOf<z.input<typeof multiple>>().toEqualTypeOf<string[]>();
  });

  it('types .default() by the offered values', () => {
    const field = choiceField([{ value: 'a', label: 'A' }] as const);
    field.default('a');
    // @ts-expect-error not an offered value
    field.default('b');
  });

  it('rejects a misspelt choice key and a choice without a label', () => {
    // @ts-expect-error defualt is not a choice key
    choiceField([{ value: 'a', label: 'A', defualt: true }]);
    // @ts-expect-error descripton is not a choice key
    choicesField([{ value: 'a', label: 'A', descripton: 'x' }] as const);
    // @ts-expect-error label is required
    choiceField([{ value: 'a' }]);
  });

  it('names the misspelt key in the error', () => {
    type Misspelt = ExactChoice<{ value: 'a'; label: 'A'; defualt: true }>;
    expectTypeOf<Misspelt['defualt']>().not.toBeNever();
    expectTypeOf<Misspelt['defualt']>().toExtend<{
      readonly 'is not a choice key (a choice has value, label, description and default)': 'defualt';
    }>();
  });
});

describe('form value types', () => {
  it('flows z.output through compile and parse: defaults applied, optionals optional, transforms run', async () => {
    const schema = z.object({
      name: z.string(),
      replicas: z.int().default(2),
      note: z.string().optional(),
      tags: z.array(z.enum(['a', 'b'])),
      length: z.string().transform((value) => value.length),
      target: choiceField([{ value: { id: 1 }, label: 'One' }] as const),
    });
    type Expected = {
      name: string;
      replicas: number;
      note?: string | undefined;
      tags: ('a' | 'b')[];
      length: number;
      target: { readonly id: 1 };
    };
    expectTypeOf<FormValue<typeof schema>>().toEqualTypeOf<Expected>();
    const parsed = await parseFormResponse({ action: 'accept', content: {} }, schema);
    if (parsed.status === 'accepted') expectTypeOf(parsed.value).toEqualTypeOf<Expected>();
    expectTypeOf(compileForm(schema).schema).toEqualTypeOf(schema);
  });
});

describe('refused constructs do not compile', () => {
  it('refuses what TypeScript can see', () => {
    // @ts-expect-error a nested object
    compileForm(z.object({ owner: z.object({ name: z.string() }) }));
    // @ts-expect-error a record
    compileForm(z.object({ labels: z.record(z.string(), z.string()) }));
    // @ts-expect-error a tuple
    compileForm(z.object({ pair: z.tuple([z.string(), z.string()]) }));
    // @ts-expect-error a union of objects
    compileForm(z.object({ target: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) }));
    // @ts-expect-error a union of scalars
    compileForm(z.object({ id: z.union([z.string(), z.number()]) }));
    // @ts-expect-error nullable
    compileForm(z.object({ name: z.string().nullable() }));
    // @ts-expect-error nullish
    compileForm(z.object({ name: z.string().nullish() }));
    // @ts-expect-error .catch()
    compileForm(z.object({ name: z.string().catch('x') }));
    // @ts-expect-error a preprocess
    compileForm(z.object({ name: z.preprocess((value) => value, z.string()) }));
    // @ts-expect-error a transform of an object
    compileForm(z.object({ name: z.object({}).transform(() => 1) }));
    // @ts-expect-error a date
    compileForm(z.object({ when: z.date() }));
    // @ts-expect-error an array of strings
    compileForm(z.object({ tags: z.array(z.string()) }));
    // @ts-expect-error a numeric literal
    compileForm(z.object({ n: z.literal(1) }));
    // @ts-expect-error a schema that is not an object
    compileForm(z.string());
    // @ts-expect-error z.coerce.number()
    compileForm(z.object({ count: z.coerce.number() }));
    // @ts-expect-error z.coerce.string()
    compileForm(z.object({ name: z.coerce.string() }));
    // @ts-expect-error z.coerce.boolean()
    compileForm(z.object({ yes: z.coerce.boolean() }));
    // @ts-expect-error z.coerce behind .optional() and .default()
    compileForm(z.object({ count: z.coerce.number().optional().default(1) }));
    // @ts-expect-error z.coerce piped into a transform
    compileForm(z.object({ count: z.coerce.number().transform(String) }));
  });

  it('refuses z.coerce with a message saying why', () => {
    expectTypeOf<
      FieldRefusal<ReturnType<typeof z.coerce.number>>
    >().toEqualTypeOf<'z.coerce (it would accept an answer of the wrong type: use z.string(), z.number() or z.boolean())'>();
    expectTypeOf<FieldRefusal<z.ZodNumber>>().toBeNever();
  });

  it('says "pass z.object" for a schema that is not an object, not a list of property refusals', () => {
    // What TypeScript checks `compileForm(z.string())` against, once z.string() failed the object constraint.
    expectTypeOf<
      FormSchemaCheck<z.core.$ZodObject>
    >().toEqualTypeOf<'ACP forms are zod object schemas: pass z.object({ ... })'>();
    expectTypeOf<FormSchemaCheck<z.ZodObject<{ name: z.ZodString }>>>().not.toBeString();
  });

  it('names constructs with the right article', () => {
    expectTypeOf<FieldRefusal<z.ZodAny>>().toEqualTypeOf<'z.any() (no ACP form field has this type)'>();
    expectTypeOf<FieldRefusal<z.ZodNaN>>().toEqualTypeOf<'z.nan() (no ACP form field has this type)'>();
    expectTypeOf<
      FieldRefusal<z.ZodUndefined>
    >().toEqualTypeOf<'z.undefined() (no ACP form field has this type)'>();
    expectTypeOf<
      FieldRefusal<z.ZodIntersection<z.ZodString, z.ZodString>>
    >().toEqualTypeOf<'an intersection (no ACP form field has this type)'>();
    expectTypeOf<
      FieldRefusal<z.ZodTemplateLiteral<`v${number}`>>
    >().toEqualTypeOf<'a template literal (no ACP form field has this type)'>();
    expectTypeOf<
      FieldRefusal<z.ZodUnion<[z.ZodString, z.ZodNumber]>>
    >().toEqualTypeOf<'a union (no ACP form field has this type)'>();
  });

  it('points z.date() to the ISO string formats', () => {
    expectTypeOf<
      FieldRefusal<z.ZodDate>
    >().toEqualTypeOf<'a date (ACP forms carry dates as text: use z.iso.date() or z.iso.datetime())'>();
  });

  it('names the property and the construct in the error type', () => {
    expectTypeOf<
      FieldRefusal<z.ZodObject<{ a: z.ZodString }>>
    >().toEqualTypeOf<'a nested object (ACP forms are flat)'>();
    expectTypeOf<FieldRefusal<z.ZodOptional<z.ZodString>>>().toBeNever();
    expectTypeOf<
      FieldRefusal<z.ZodNullable<z.ZodString>>
    >().toEqualTypeOf<'nullable (ACP answers never contain null: use .optional())'>();
    expectTypeOf<
      FieldRefusal<z.ZodRecord<z.ZodString, z.ZodString>>
    >().toEqualTypeOf<'a record (no ACP form field has this type)'>();
  });
});

describe('wire types', () => {
  it('are assignable to the SDK types', () => {
    expectTypeOf<FormElicitationParams>().toExtend<sdk.CreateElicitationRequest>();
    expectTypeOf<FormRequestedSchema>().toExtend<sdk.ElicitationSchema>();
    expectTypeOf<FormPropertySchema>().toExtend<sdk.ElicitationPropertySchema>();
  });
});
