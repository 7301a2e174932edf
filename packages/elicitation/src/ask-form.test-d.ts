import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { choiceField, choicesField } from './index.js';
import { ElicitationAccepted, ElicitationDeclined, type ElicitationResult } from './results.js';
import type { AcpSessionContext } from './session-context.js';

declare const session: AcpSessionContext;

describe('askForm types', () => {
  it('flows z.infer of the schema to result.value', async () => {
    const release = z.object({
      version: z.string().regex(/^\d+\.\d+\.\d+$/),
      replicas: z.int().min(1).default(2),
      note: z.string().optional(),
      regions: z.array(z.enum(['eu', 'us'])),
      channel: choiceField([
        { value: { tag: 'latest' }, label: 'Stable' },
        { value: { tag: 'next' }, label: 'Preview' },
      ] as const),
      packages: choicesField([{ value: 1, label: 'One' }] as const),
    });
    const result = await session.askForm('Release details', release);
    expectTypeOf(result).toEqualTypeOf<ElicitationResult<z.infer<typeof release>>>();
    if (result.status === 'accepted') {
      expectTypeOf(result.value).toEqualTypeOf<{
        version: string;
        replicas: number;
        note?: string | undefined;
        regions: ('eu' | 'us')[];
        channel: { readonly tag: 'latest' } | { readonly tag: 'next' };
        packages: 1[];
      }>();
    }
  });

  it('types the fallback by the form value', () => {
    const schema = z.object({ version: z.string() });
    void session.askForm('Q', schema, { fallback: () => new ElicitationAccepted({ version: '1.0.0' }) });
    void session.askForm('Q', schema, { fallback: async () => new ElicitationDeclined() });
    // @ts-expect-error the fallback's value is not the form's value
    void session.askForm('Q', schema, { fallback: () => new ElicitationAccepted({ version: 1 }) });
  });

  it('refuses schemas ACP forms cannot express', () => {
    // @ts-expect-error a nested object
    void session.askForm('Q', z.object({ owner: z.object({ name: z.string() }) }));
    // @ts-expect-error a record
    void session.askForm('Q', z.object({ labels: z.record(z.string(), z.string()) }));
    const union = z.object({ target: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) });
    // @ts-expect-error a union of objects
    void session.askForm('Q', union);
    // @ts-expect-error a tuple
    void session.askForm('Q', z.object({ pair: z.tuple([z.string(), z.string()]) }));
    // @ts-expect-error nullable
    void session.askForm('Q', z.object({ name: z.string().nullable() }));
    // @ts-expect-error a transform whose input is not a form field
    void session.askForm('Q', z.object({ name: z.preprocess((value) => value, z.string()) }));
    // @ts-expect-error not an object schema
    void session.askForm('Q', z.string());
    // @ts-expect-error z.coerce (number, string and boolean alike)
    void session.askForm('Q', z.object({ count: z.coerce.number() }));
    // @ts-expect-error z.coerce.boolean() with a default
    void session.askForm('Q', z.object({ yes: z.coerce.boolean().default(true) }));
  });
});

describe('helper types', () => {
  it('returns boolean, string and the offered values', async () => {
    expectTypeOf(await session.askConfirm('Q')).toEqualTypeOf<ElicitationResult<boolean>>();
    expectTypeOf(await session.askText('Q', { format: 'email' })).toEqualTypeOf<ElicitationResult<string>>();
    const picked = await session.askChoices('Q', [
      { value: 'a', label: 'A' },
      { value: 2, label: 'Two', default: true },
    ] as const);
    expectTypeOf(picked).toEqualTypeOf<ElicitationResult<('a' | 2)[]>>();
  });

  it('types helper fallbacks and options', () => {
    void session.askConfirm('Q', { fallback: () => new ElicitationAccepted(false) });
    // @ts-expect-error a confirm answers a boolean
    void session.askConfirm('Q', { fallback: () => new ElicitationAccepted('yes') });
    // @ts-expect-error formats are the four ACP formats
    void session.askText('Q', { format: 'uuid' });
    void session.askChoices('Q', [{ value: 'a', label: 'A' }] as const, {
      fallback: () => new ElicitationAccepted(['a' as const]),
    });
    void session.askChoices('Q', [{ value: 'a', label: 'A' }] as const, {
      // @ts-expect-error the fallback must pick offered values
      fallback: () => new ElicitationAccepted(['b']),
    });
  });
});

describe('type gaps of the first trial', () => {
  it('types a fallback by the offered values', () => {
    const choices = [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
    ] as const;
    void session.askChoice('Q', choices, { fallback: () => new ElicitationAccepted('a') });
    // @ts-expect-error 'zzz' was not offered
    void session.askChoice('Q', choices, { fallback: () => new ElicitationAccepted('zzz') });
  });

  it('types equals by the value type', () => {
    const choices = [{ value: { id: 1 }, label: 'One' }];
    void session.askChoice('Q', choices, { equals: (offered, returned) => offered.id === returned.id });
    expectTypeOf(session.askChoice<(typeof choices)[number]>)
      .parameter(2)
      .exclude<undefined>()
      .toHaveProperty('equals')
      .toEqualTypeOf<
        ((offeredValue: { id: number }, fallbackValue: { id: number }) => boolean) | undefined
      >();
    // @ts-expect-error returned is typed: it has no property nope
    void session.askChoice('Q', choices, { equals: (offered, returned) => offered.id === returned.nope });
  });

  it('rejects a misspelt choice key', () => {
    // @ts-expect-error defualt is not a choice key
    void session.askChoice('Q', [{ value: 'a', label: 'A', defualt: true }]);
    // @ts-expect-error lable is not a choice key (and label is missing)
    void session.askChoices('Q', [{ value: 'a', lable: 'A' }] as const);
    // @ts-expect-error descripton is not a choice key
    void choiceField([{ value: 'a', label: 'A', descripton: 'x' }]);
  });

  it('types createElicitation with the SDK form schema and fills the session in', () => {
    void session.createElicitation('Tag', {
      mode: 'form',
      requestedSchema: {
        type: 'object',
        required: ['tagName', 'count'],
        properties: {
          tagName: { type: 'string', minLength: 1 },
          count: { type: 'integer', default: 10 },
          confirm: { type: 'boolean' },
          channels: { type: 'array', items: { anyOf: [{ const: 'stable', title: 'Stable' }] } },
          widget: { type: '_vendor_widget', anything: true },
        },
      },
    });
    void session.createElicitation('Tag', {
      mode: 'form',
      requestedSchema: {
        // @ts-expect-error tagNmae is not a property
        required: ['tagNmae'],
        properties: { tagName: { type: 'string' } },
      },
    });
    void session.createElicitation('Count', {
      mode: 'form',
      // @ts-expect-error an integer default must be a number
      requestedSchema: { properties: { count: { type: 'integer', default: 'ten' } } },
    });
    void session.createElicitation('Format', {
      mode: 'form',
      // @ts-expect-error color is not an ACP string format
      requestedSchema: { properties: { tint: { type: 'string', format: 'color' } } },
    });
    void session.createElicitation('Sign in', {
      mode: 'url',
      elicitationId: 'e1',
      url: 'https://example.com',
    });
    void session.createElicitation('Setup', {
      mode: 'url',
      elicitationId: 'e1',
      url: 'https://example.com',
      requestId: 3,
    });
    void session.createElicitation(
      'Tool',
      { mode: 'form', requestedSchema: { properties: {} } },
      { toolCallId: 'c1' },
    );
  });
});
