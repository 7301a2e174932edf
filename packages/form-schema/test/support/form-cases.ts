// Every zod construct the form compiler accepts, with the exact wire property it must produce. The unit tests
// check the mapping; test/sdk-wire.test.ts sends each compiled form through a real SDK client's typed handler.
import { z } from 'zod';
import { choiceField, choicesField } from '../../src/index.js';

export interface FieldCase {
  readonly name: string;
  readonly field: z.core.$ZodType;
  readonly property: Record<string, unknown>;
  readonly required: boolean;
}

const targets = [
  { value: { id: 'preview' }, label: 'Preview' },
  { value: { id: 'production' }, label: 'Production', description: 'Real users.', default: true },
] as const;
const packages = [
  { value: 1, label: 'elicitation', default: true },
  { value: 2, label: 'remote' },
  { value: 3, label: 'form-schema', default: true },
] as const;
const tokenOptions = [
  { const: 'choice_0', title: 'Preview' },
  {
    const: 'choice_1',
    title: 'Production',
    description: 'Real users.',
    _meta: { 'acpkit.dev/choice-description': 'Real users.' },
  },
];
const packageOptions = [
  { const: 'choice_0', title: 'elicitation' },
  { const: 'choice_1', title: 'remote' },
  { const: 'choice_2', title: 'form-schema' },
];

export const FIELD_CASES: readonly FieldCase[] = [
  { name: 'z.string()', field: z.string(), property: { type: 'string' }, required: true },
  {
    name: 'lengths and one regex',
    field: z
      .string()
      .min(3)
      .max(40)
      .regex(/^[a-z0-9-]+$/),
    property: { type: 'string', minLength: 3, maxLength: 40, pattern: '^[a-z0-9-]+$' },
    required: true,
  },
  {
    name: '.length() and the tightest of repeated lengths',
    field: z.string().min(2).min(4).length(8).max(10),
    property: { type: 'string', minLength: 8, maxLength: 8 },
    required: true,
  },
  {
    name: 'a regex with the u flag',
    field: z.string().regex(/^\p{L}+$/u),
    property: { type: 'string', pattern: '^\\p{L}+$' },
    required: true,
  },
  {
    name: '.startsWith() as its regular expression',
    field: z.string().startsWith('v'),
    property: { type: 'string', pattern: '^v.*' },
    required: true,
  },
  { name: 'z.email()', field: z.email(), property: { type: 'string', format: 'email' }, required: true },
  {
    name: 'z.string().email() with a length',
    field: z.string().email().max(100),
    property: { type: 'string', maxLength: 100, format: 'email' },
    required: true,
  },
  { name: 'z.url()', field: z.url(), property: { type: 'string', format: 'uri' }, required: true },
  { name: 'z.httpUrl()', field: z.httpUrl(), property: { type: 'string', format: 'uri' }, required: true },
  { name: 'z.iso.date()', field: z.iso.date(), property: { type: 'string', format: 'date' }, required: true },
  {
    name: 'z.iso.datetime()',
    field: z.iso.datetime({ offset: true }),
    property: { type: 'string', format: 'date-time' },
    required: true,
  },
  {
    name: 'a format and a regex together',
    field: z.email().regex(/@example\.com$/),
    property: { type: 'string', pattern: '@example\\.com$', format: 'email' },
    required: true,
  },
  {
    name: '.trim() and .refine() (answer side only)',
    field: z
      .string()
      .trim()
      .refine((value) => value !== 'admin'),
    property: { type: 'string' },
    required: true,
  },
  {
    name: '.meta() title and description',
    field: z.string().meta({ title: 'Release name', description: 'Lower case.' }),
    property: { type: 'string', title: 'Release name', description: 'Lower case.' },
    required: true,
  },
  {
    name: '.describe(), and the outer title winning over the inner one',
    field: z.string().meta({ title: 'Inner' }).describe('Described.').optional().meta({ title: 'Outer' }),
    property: { type: 'string', title: 'Outer', description: 'Described.' },
    required: false,
  },
  {
    name: '.optional()',
    field: z.string().max(3).optional(),
    property: { type: 'string', maxLength: 3 },
    required: false,
  },
  {
    name: '.default() on a string',
    field: z.string().min(2).default('main'),
    property: { type: 'string', minLength: 2, default: 'main' },
    required: false,
  },
  {
    name: '.prefault() on a string',
    field: z.string().prefault('main'),
    property: { type: 'string', default: 'main' },
    required: false,
  },
  {
    name: 'z.number() with inclusive bounds',
    field: z.number().min(0).max(1),
    property: { type: 'number', minimum: 0, maximum: 1 },
    required: true,
  },
  {
    name: 'z.number().nonnegative()',
    field: z.number().nonnegative(),
    property: { type: 'number', minimum: 0 },
    required: true,
  },
  {
    name: 'z.int() with a default',
    field: z.int().min(1).max(5).default(2),
    property: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    required: false,
  },
  {
    name: '.int() with exclusive bounds sent as the next whole numbers',
    field: z.number().int().gt(0).lt(10.5),
    property: { type: 'integer', minimum: 1, maximum: 10 },
    required: true,
  },
  {
    name: 'z.int().positive()',
    field: z.int().positive(),
    property: { type: 'integer', minimum: 1 },
    required: true,
  },
  {
    name: 'z.uint32() with its range',
    field: z.uint32(),
    property: { type: 'integer', minimum: 0, maximum: 4_294_967_295 },
    required: true,
  },
  {
    name: 'z.int32() narrowed by .max()',
    field: z.int32().max(10),
    property: { type: 'integer', minimum: -2_147_483_648, maximum: 10 },
    required: true,
  },
  { name: 'z.boolean()', field: z.boolean(), property: { type: 'boolean' }, required: true },
  {
    name: 'z.boolean().default(true)',
    field: z.boolean().default(true),
    property: { type: 'boolean', default: true },
    required: false,
  },
  {
    name: 'z.enum() titled with its values',
    field: z.enum(['preview', 'production']),
    property: {
      type: 'string',
      oneOf: [
        { const: 'preview', title: 'preview' },
        { const: 'production', title: 'production' },
      ],
    },
    required: true,
  },
  {
    name: 'z.enum() with a default',
    field: z.enum(['a', 'b']).default('b'),
    property: {
      type: 'string',
      default: 'b',
      oneOf: [
        { const: 'a', title: 'a' },
        { const: 'b', title: 'b' },
      ],
    },
    required: false,
  },
  {
    name: 'z.literal() of several strings',
    field: z.literal(['yes', 'no']),
    property: {
      type: 'string',
      oneOf: [
        { const: 'yes', title: 'yes' },
        { const: 'no', title: 'no' },
      ],
    },
    required: true,
  },
  {
    name: 'z.array(z.enum()) with item counts',
    field: z
      .array(z.enum(['stable', 'beta', 'nightly']))
      .min(1)
      .max(2),
    property: {
      type: 'array',
      minItems: 1,
      maxItems: 2,
      items: {
        anyOf: [
          { const: 'stable', title: 'stable' },
          { const: 'beta', title: 'beta' },
          { const: 'nightly', title: 'nightly' },
        ],
      },
    },
    required: true,
  },
  {
    name: 'z.array(z.literal()) .nonempty() with a default',
    field: z
      .array(z.literal(['x', 'y']))
      .nonempty()
      .default(['y']),
    property: {
      type: 'array',
      minItems: 1,
      default: ['y'],
      items: {
        anyOf: [
          { const: 'x', title: 'x' },
          { const: 'y', title: 'y' },
        ],
      },
    },
    required: false,
  },
  {
    name: 'choiceField() with a choice marked default',
    field: choiceField(targets),
    property: { type: 'string', default: 'choice_1', oneOf: tokenOptions },
    required: true,
  },
  {
    name: 'choiceField().default(value), titled, optional',
    field: choiceField(targets).meta({ title: 'Target' }).default(targets[0].value),
    property: { type: 'string', title: 'Target', default: 'choice_0', oneOf: tokenOptions },
    required: false,
  },
  {
    name: 'choicesField() with item counts and several defaults',
    field: choicesField(packages, { minItems: 1, maxItems: 2 }),
    property: {
      type: 'array',
      minItems: 1,
      maxItems: 2,
      default: ['choice_0', 'choice_2'],
      items: { anyOf: packageOptions },
    },
    required: true,
  },
  {
    name: 'choicesField().default(values)',
    field: choicesField(packages).default([2]),
    property: { type: 'array', default: ['choice_1'], items: { anyOf: packageOptions } },
    required: false,
  },
  {
    name: 'a transform after a form field (its default is not sent)',
    field: z
      .string()
      .transform((value) => value.split(','))
      .default(['a']),
    property: { type: 'string' },
    required: false,
  },
  {
    name: 'a default inside a transform (an input value, sent)',
    field: z
      .string()
      .default('a,b')
      .transform((value) => value.split(',')),
    property: { type: 'string', default: 'a,b' },
    required: false,
  },
  {
    name: 'a pipe into another schema',
    field: z.string().pipe(z.string().min(2)),
    property: { type: 'string' },
    required: true,
  },
  {
    name: '.readonly() and .brand()',
    field: z.string().brand<'Name'>().readonly(),
    property: { type: 'string' },
    required: true,
  },
];

/** One form holding every accepted field, named by its index. */
export function formOfAllCases() {
  return z.object(
    Object.fromEntries(FIELD_CASES.map((fieldCase, index) => [`field${index}`, fieldCase.field])),
  );
}
