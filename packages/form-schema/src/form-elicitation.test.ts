import { InvalidElicitationResponseError } from '@acpkit/choice-schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { choiceField, choicesField } from './choice-field.js';
import { compileForm } from './compile-form.js';
import { compileFormElicitation, parseFormResponse } from './form-elicitation.js';

const preview = { id: 'preview' };
const production = { id: 'production' };
const stable = { tag: 'latest' };
const beta = { tag: 'next' };

const release = z.object({
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  codename: z.string().max(10).optional(),
  replicas: z.int().min(1).max(5).default(2),
  ratio: z.number().min(0).max(1).optional(),
  notify: z.boolean().default(true),
  contact: z.email().optional(),
  environment: z.enum(['staging', 'production']).default('staging'),
  regions: z
    .array(z.enum(['eu', 'us', 'ap']))
    .min(1)
    .max(2),
  target: choiceField([
    { value: preview, label: 'Preview' },
    { value: production, label: 'Production' },
  ]).default(production),
  channels: choicesField(
    [
      { value: stable, label: 'Stable' },
      { value: beta, label: 'Beta' },
    ],
    { minItems: 1 },
  ),
});
const minimal = { version: '1.2.3', regions: ['eu'], channels: ['choice_1'] };

async function invalid(
  response: unknown,
  schema: z.ZodObject = release,
): Promise<InvalidElicitationResponseError> {
  try {
    await parseFormResponse(response, schema as typeof release);
  } catch (error) {
    expect(InvalidElicitationResponseError.isInstance(error), String(error)).toBe(true);
    return error as InvalidElicitationResponseError;
  }
  throw new Error('expected an InvalidElicitationResponseError');
}

async function issuesOf(content: Record<string, unknown>) {
  const error = await invalid({ action: 'accept', content: { ...minimal, ...content } });
  expect(error.code).toBe('INVALID_CONTENT');
  return error.issues.map((issue) => ({ path: issue.path, code: issue.code }));
}

describe('compileFormElicitation', () => {
  it('builds form-mode params with the compiled schema, key for key', () => {
    const schema = z.object({ name: z.string() });
    const params = compileFormElicitation({ sessionId: 's1', message: ' Release details ', schema });
    expect(Object.keys(params)).toEqual(['sessionId', 'mode', 'message', 'requestedSchema']);
    expect(params).toStrictEqual({
      sessionId: 's1',
      mode: 'form',
      message: ' Release details ',
      requestedSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    });
    expect(params.requestedSchema).toBe(compileForm(schema).requestedSchema);
  });

  it('adds toolCallId only when given', () => {
    const params = compileFormElicitation({
      sessionId: 's1',
      toolCallId: 'call-7',
      message: 'Q',
      schema: z.object({}),
    });
    expect(Object.keys(params)).toEqual(['sessionId', 'toolCallId', 'mode', 'message', 'requestedSchema']);
  });

  it('refuses a blank message and a schema ACP cannot express before building anything', () => {
    expect(() => compileFormElicitation({ sessionId: 's', message: ' \n', schema: z.object({}) })).toThrow(
      expect.objectContaining({ code: 'BLANK_QUESTION' }),
    );
    expect(() =>
      compileFormElicitation({
        sessionId: 's',
        message: 'Q',
        schema: z.object({ owner: z.object({}) }) as never,
      }),
    ).toThrow(expect.objectContaining({ code: 'NESTED_OBJECT', path: 'owner' }));
  });
});

describe('parseFormResponse: accepted answers', () => {
  it('returns the typed value with defaults applied and choice tokens mapped to the offered values', async () => {
    const parsed = await parseFormResponse({ action: 'accept', content: minimal }, release);
    expect(parsed).toStrictEqual({
      status: 'accepted',
      value: {
        version: '1.2.3',
        replicas: 2,
        notify: true,
        environment: 'staging',
        regions: ['eu'],
        target: production,
        channels: [beta],
      },
    });
    if (parsed.status !== 'accepted') throw new Error('not accepted');
    // The offered objects themselves, not copies: for a pick and for a choice field's default.
    expect(parsed.value.channels[0]).toBe(beta);
    expect(parsed.value.target).toBe(production);
  });

  it('keeps every answer given, multi-select picks in the order the client sent them', async () => {
    const parsed = await parseFormResponse(
      {
        action: 'accept',
        content: {
          ...minimal,
          codename: 'otter',
          replicas: 5,
          ratio: 0.25,
          notify: false,
          contact: 'ops@example.com',
          environment: 'production',
          regions: ['us', 'eu'],
          target: 'choice_0',
          channels: ['choice_1', 'choice_0'],
        },
      },
      release,
    );
    expect(parsed).toStrictEqual({
      status: 'accepted',
      value: {
        version: '1.2.3',
        codename: 'otter',
        replicas: 5,
        ratio: 0.25,
        notify: false,
        contact: 'ops@example.com',
        environment: 'production',
        regions: ['us', 'eu'],
        target: preview,
        channels: [beta, stable],
      },
    });
  });

  it('ignores keys the form does not have, whatever the object mode, and never returns them', async () => {
    for (const schema of [
      z.object({ a: z.string() }),
      z.strictObject({ a: z.string() }),
      z.looseObject({ a: z.string() }),
    ]) {
      const parsed = await parseFormResponse(
        { action: 'accept', content: { a: 'x', extra: 1, __proto__: { polluted: true } } },
        schema,
      );
      expect(parsed).toStrictEqual({ status: 'accepted', value: { a: 'x' } });
    }
  });

  it('reads absent or null content as no answers', async () => {
    const optional = z.object({ note: z.string().optional(), count: z.int().default(1) });
    for (const response of [{ action: 'accept' }, { action: 'accept', content: null }]) {
      expect(await parseFormResponse(response, optional)).toStrictEqual({
        status: 'accepted',
        value: { count: 1 },
      });
    }
  });

  it('runs transforms, refinements and async refinements on the answer', async () => {
    const schema = z
      .object({
        tags: z.string().transform((value) => value.split(',')),
        name: z.string().refine(async (value) => value !== 'taken', 'That name is taken'),
      })
      .refine((value) => value.tags.length < 3, { message: 'At most two tags', path: ['tags'] });
    expect(
      await parseFormResponse({ action: 'accept', content: { tags: 'a,b', name: 'free' } }, schema),
    ).toEqual({
      status: 'accepted',
      value: { tags: ['a', 'b'], name: 'free' },
    });
    const error = await invalid({ action: 'accept', content: { tags: 'a,b,c', name: 'taken' } }, schema);
    // zod runs the object-level refinement too: a refinement's issue does not abort the parse.
    expect(error.issues.map((issue) => issue.message)).toEqual(['That name is taken', 'At most two tags']);
    const crossField = await invalid({ action: 'accept', content: { tags: 'a,b,c', name: 'free' } }, schema);
    expect(crossField.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['tags'], 'At most two tags'],
    ]);
  });
});

describe('parseFormResponse: invalid answers (never coerced)', () => {
  it.each([
    ['a missing required field', { version: undefined }, [['version'], 'invalid_type']],
    ['a pattern mismatch', { version: 'v1' }, [['version'], 'invalid_format']],
    ['a number sent as a string', { replicas: '3' }, [['replicas'], 'invalid_type']],
    ['a fraction for an integer', { replicas: 2.5 }, [['replicas'], 'invalid_type']],
    ['a number over the maximum', { replicas: 6 }, [['replicas'], 'too_big']],
    ['a boolean sent as a string', { notify: 'true' }, [['notify'], 'invalid_type']],
    ['an invalid email', { contact: 'ops' }, [['contact'], 'invalid_format']],
    ['a string too long', { codename: 'x'.repeat(11) }, [['codename'], 'too_big']],
    ['an enum value not offered', { environment: 'dev' }, [['environment'], 'invalid_value']],
    ['a multi-select item not offered', { regions: ['eu', 'mars'] }, [['regions', 1], 'invalid_value']],
    ['too many picks', { regions: ['eu', 'us', 'ap'] }, [['regions'], 'too_big']],
    ['no picks where one is required', { channels: [] }, [['channels'], 'too_small']],
    ['a token not issued', { target: 'choice_2' }, [['target'], 'custom']],
    ['a padded token', { target: 'choice_01' }, [['target'], 'custom']],
    ['a value instead of a token', { target: 'production' }, [['target'], 'custom']],
    ['a token picked twice', { channels: ['choice_0', 'choice_0'] }, [['channels', 1], 'custom']],
    ['a multi-select sent as one string', { channels: 'choice_0' }, [['channels'], 'invalid_type']],
    ['null for an optional field', { codename: null }, [['codename'], 'invalid_type']],
  ] as const)('reports %s', async (_name, content, [path, code]) => {
    expect(await issuesOf(content)).toEqual([{ path, code }]);
  });

  it('keeps the raw response, its content, zod issues and the ZodError', async () => {
    const response = { action: 'accept', content: { ...minimal, replicas: 9, ratio: 2 } };
    const error = await invalid(response);
    expect(error.name).toBe('InvalidElicitationResponseError');
    expect(error.response).toBe(response);
    expect(error.content).toBe(response.content);
    expect(error.cause).toBeInstanceOf(z.ZodError);
    expect((error.cause as z.ZodError).issues).toBe(error.issues);
    expect(error.message).toBe(
      'The ACP client accepted the form with content that does not match it: "replicas": Too big: expected number ' +
        'to be <=5; "ratio": Too big: expected number to be <=1',
    );
  });

  it('names at most three issues in the message', async () => {
    const error = await invalid({ action: 'accept', content: { replicas: 'x', notify: 1, regions: 'x' } });
    expect(error.issues.length).toBeGreaterThan(3);
    expect(error.message).toMatch(/; and \d+ more$/);
  });

  it.each([
    ['a string', 'x'],
    ['an array', ['choice_0']],
    ['a number', 1],
  ])('refuses content that is %s', async (_name, content) => {
    const error = await invalid({ action: 'accept', content });
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.issues).toEqual([
      { code: 'invalid_type', path: [], message: 'Form content must be an object of answers' },
    ]);
    expect(error.content).toBe(content);
  });
});

describe('parseFormResponse: other actions', () => {
  it('maps decline and cancel whatever the content', async () => {
    expect(await parseFormResponse({ action: 'decline', content: { version: 1 } }, release)).toEqual({
      status: 'declined',
    });
    expect(await parseFormResponse({ action: 'cancel' }, release)).toEqual({ status: 'cancelled' });
  });

  it.each([[{ action: '_later' }], [{}], [null], ['accept']])(
    'refuses %j as UNSUPPORTED_ACTION',
    async (response) => {
      expect((await invalid(response)).code).toBe('UNSUPPORTED_ACTION');
    },
  );
});
