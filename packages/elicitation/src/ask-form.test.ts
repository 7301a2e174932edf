import { InvalidElicitationResponseError } from '@acpkit/choice-schema';
import { FormSchemaError } from '@acpkit/form-schema';
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { fakeClient, nextRequest, sessionWith } from '../test/support/fake-client.js';
import {
  ClientCapabilitiesNotRecordedError,
  ElicitationUnsupportedError,
  InvalidElicitationFallbackError,
} from './errors.js';
import { choiceField } from './index.js';
import { ElicitationAccepted, ElicitationCancelled, ElicitationDeclined } from './results.js';

const FORM = { elicitation: { form: {} } };
const stable = { tag: 'latest' };
const preview = { tag: 'next' };
const release = z.object({
  version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/)
    .meta({ title: 'Version' }),
  replicas: z.int().min(1).max(5).default(2),
  channel: choiceField([
    { value: stable, label: 'Stable', default: true },
    { value: preview, label: 'Preview' },
  ]),
});

async function answered<T>(
  pending: Promise<T>,
  requests: ReturnType<typeof fakeClient>['requests'],
  answer: unknown,
) {
  const request = await nextRequest(requests);
  request.resolve(answer);
  return { result: await pending, request };
}

describe('AcpSessionContext.askForm', () => {
  it('sends the compiled form and returns the value parsed by the same schema, from the client', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askForm('Release details', release, { toolCallId: 'call-1' });
    const { result, request } = await answered(pending, requests, {
      action: 'accept',
      content: { version: '1.5.0', channel: 'choice_1', ignored: true },
    });
    expect(request.method).toBe('elicitation/create');
    expect(request.params).toStrictEqual({
      sessionId: 'session-1',
      toolCallId: 'call-1',
      mode: 'form',
      message: 'Release details',
      requestedSchema: {
        type: 'object',
        required: ['version', 'channel'],
        properties: {
          version: { type: 'string', title: 'Version', pattern: '^\\d+\\.\\d+\\.\\d+$' },
          replicas: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
          channel: {
            type: 'string',
            default: 'choice_0',
            oneOf: [
              { const: 'choice_0', title: 'Stable' },
              { const: 'choice_1', title: 'Preview' },
            ],
          },
        },
      },
    });
    expect(request.options?.stopWaitingOnCancel).toBe(true);
    expect(result).toBeInstanceOf(ElicitationAccepted);
    expect(result).toStrictEqual(
      new ElicitationAccepted({ version: '1.5.0', replicas: 2, channel: preview }, 'client'),
    );
    if (result.status === 'accepted') expect(result.value.channel).toBe(preview);
  });

  it.each([
    ['decline', ElicitationDeclined],
    ['cancel', ElicitationCancelled],
  ] as const)('maps %s from the client', async (action, variant) => {
    const { client, requests } = fakeClient();
    const { result } = await answered(sessionWith(FORM, client).askForm('Q', release), requests, { action });
    expect(result).toBeInstanceOf(variant);
    expect(result.source).toBe('client');
  });

  it('rejects content that fails the schema with INVALID_CONTENT, zod issues and the raw content', async () => {
    const { client, requests } = fakeClient();
    const response = { action: 'accept', content: { version: 'v1', replicas: '3', channel: 'choice_7' } };
    const pending = sessionWith(FORM, client).askForm('Q', release);
    (await nextRequest(requests)).resolve(response);
    const error = await pending.catch((caught: unknown) => caught);
    expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
    const invalid = error as InvalidElicitationResponseError;
    expect(invalid.code).toBe('INVALID_CONTENT');
    expect(invalid.content).toBe(response.content);
    expect(invalid.issues.map((issue) => issue.path)).toEqual([['version'], ['replicas'], ['channel']]);
  });

  it('refuses a schema ACP forms cannot express before checking capabilities or sending', async () => {
    const { client, requests } = fakeClient();
    const nested = z.object({ owner: z.object({ name: z.string() }) });
    for (const capabilities of [FORM, undefined]) {
      const error = await sessionWith(capabilities, client)
        .askForm('Q', nested as never)
        .catch((caught: unknown) => caught);
      expect(FormSchemaError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'NESTED_OBJECT', path: 'owner', construct: 'object' });
    }
    expect(requests).toHaveLength(0);
  });

  it('runs a typed fallback for a client without form elicitation, and requires a result variant', async () => {
    const { client, requests } = fakeClient();
    const fromConfig = { version: '1.4.0', replicas: 1, channel: stable };
    const result = await sessionWith({}, client).askForm('Q', release, {
      fallback: () => new ElicitationAccepted(fromConfig),
    });
    expect(result).toStrictEqual(new ElicitationAccepted(fromConfig, 'fallback'));
    const plain = (() => fromConfig) as unknown as () => ElicitationDeclined;
    await expect(sessionWith({}, client).askForm('Q', release, { fallback: plain })).rejects.toSatisfy(
      (error: unknown) =>
        InvalidElicitationFallbackError.isInstance(error) && error.code === 'FALLBACK_NOT_A_RESULT',
    );
    await expect(sessionWith({}, client).askForm('Q', release)).rejects.toSatisfy(
      ElicitationUnsupportedError.isInstance,
    );
    expect(requests).toHaveLength(0);
  });

  it('treats -32601 as unsupported and session/cancel as cancelled', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const unsupported = session.askForm('Q', release, { fallback: () => new ElicitationDeclined() });
    (await nextRequest(requests)).reject(RequestError.methodNotFound('elicitation/create'));
    expect(await unsupported).toBeInstanceOf(ElicitationDeclined);

    const cancelled = session.askForm('Q', release);
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    session.cancelPending();
    expect(await cancelled).toStrictEqual(new ElicitationCancelled('client'));
  });
});

describe('the one-field helpers', () => {
  it('askConfirm sends one boolean titled Confirm (or as told) and returns the answer', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const plain = await answered(session.askConfirm('Continue?'), requests, {
      action: 'accept',
      content: { value: true },
    });
    expect(plain.request.params).toMatchObject({
      message: 'Continue?',
      requestedSchema: { required: ['value'], properties: { value: { type: 'boolean', title: 'Confirm' } } },
    });
    expect(plain.result).toStrictEqual(new ElicitationAccepted(true, 'client'));

    const pending = session.askConfirm('Publish now?', {
      default: false,
      title: 'Publish',
      description: 'npm',
    });
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    requests[1]?.resolve({ action: 'accept', content: {} });
    expect(requests[1]?.params).toMatchObject({
      requestedSchema: {
        properties: { value: { type: 'boolean', title: 'Publish', description: 'npm', default: false } },
      },
    });
    expect(requests[1]?.params).not.toHaveProperty('requestedSchema.required');
    expect(await pending).toStrictEqual(new ElicitationAccepted(false, 'client'));
  });

  it('askConfirm refuses a non-boolean answer', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askConfirm('Continue?');
    (await nextRequest(requests)).resolve({ action: 'accept', content: { value: 'yes' } });
    await expect(pending).rejects.toMatchObject({ code: 'INVALID_CONTENT' });
  });

  it('askText sends its constraints and checks the answer against them', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const pending = session.askText('Tag?', {
      minLength: 2,
      maxLength: 20,
      pattern: '^v\\d+',
      default: 'v1',
    });
    const { result, request } = await answered(pending, requests, {
      action: 'accept',
      content: { value: 'v22' },
    });
    expect(request.params).toMatchObject({
      requestedSchema: {
        properties: {
          value: {
            type: 'string',
            title: 'Answer',
            minLength: 2,
            maxLength: 20,
            pattern: '^v\\d+',
            default: 'v1',
          },
        },
      },
    });
    expect(result).toStrictEqual(new ElicitationAccepted('v22', 'client'));

    for (const [format, wire] of [
      ['email', 'email'],
      ['uri', 'uri'],
      ['date', 'date'],
      ['date-time', 'date-time'],
    ] as const) {
      const formatted = session.askText('Q', { format, pattern: /^x/ });
      await vi.waitFor(() => expect(requests.at(-1)?.params).toMatchObject({ message: 'Q' }));
      expect(requests.at(-1)?.params).toMatchObject({
        requestedSchema: { properties: { value: { format: wire, pattern: '^x' } } },
      });
      requests.at(-1)?.resolve({ action: 'decline' });
      expect(await formatted).toBeInstanceOf(ElicitationDeclined);
      requests.length = 0;
    }

    const dated = session.askText('When?', { format: 'date-time' });
    (await nextRequest(requests)).resolve({
      action: 'accept',
      content: { value: '2026-01-02T03:04:05+02:00' },
    });
    expect(await dated).toStrictEqual(new ElicitationAccepted('2026-01-02T03:04:05+02:00', 'client'));

    const tooShort = session.askText('Q', { minLength: 3 });
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    requests[1]?.resolve({ action: 'accept', content: { value: 'ab' } });
    await expect(tooShort).rejects.toMatchObject({ code: 'INVALID_CONTENT' });
  });

  it('askText refuses a pattern with flags the wire cannot carry, before sending', async () => {
    const { client, requests } = fakeClient();
    await expect(sessionWith(FORM, client).askText('Q', { pattern: /abc/i })).rejects.toMatchObject({
      code: 'UNSUPPORTED_REGEX_FLAGS',
      path: 'value',
    });
    expect(requests).toHaveLength(0);
  });

  it('askChoices and askText refuse a default that breaks their own constraints, before sending', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const two = [
      { value: 1, label: 'One', default: true },
      { value: 2, label: 'Two', default: true },
    ];
    await expect(session.askChoices('Pick', two, { maxItems: 1 })).rejects.toSatisfy(
      (error) =>
        FormSchemaError.isInstance(error) && error.code === 'INVALID_DEFAULT' && error.path === 'value',
    );
    await expect(session.askText('Tag', { pattern: '^v\\d+$', default: '1.0' })).rejects.toMatchObject({
      code: 'INVALID_DEFAULT',
    });
    expect(requests).toHaveLength(0);
  });

  it('askChoices sends tokens, preselects every default and returns the offered values in the client order', async () => {
    const { client, requests } = fakeClient();
    const elicitation = { name: '@acpkit/elicitation' };
    const remote = { name: '@acpkit/remote' };
    const pending = sessionWith(FORM, client).askChoices(
      'Publish which?',
      [
        { value: elicitation, label: 'elicitation', default: true },
        { value: remote, label: 'remote', description: 'Relays.', default: true },
      ],
      { minItems: 1, maxItems: 2, title: 'Packages' },
    );
    const { result, request } = await answered(pending, requests, {
      action: 'accept',
      content: { value: ['choice_1', 'choice_0'] },
    });
    expect(request.params).toMatchObject({
      requestedSchema: {
        required: ['value'],
        properties: {
          value: {
            type: 'array',
            title: 'Packages',
            minItems: 1,
            maxItems: 2,
            default: ['choice_0', 'choice_1'],
            items: {
              anyOf: [
                { const: 'choice_0', title: 'elicitation' },
                { const: 'choice_1', title: 'remote', description: 'Relays.' },
              ],
            },
          },
        },
      },
    });
    expect(JSON.stringify(request.params)).not.toContain('@acpkit');
    if (result.status !== 'accepted') throw new Error('not accepted');
    expect(result.value).toEqual([remote, elicitation]);
    expect(result.value[0]).toBe(remote);
  });

  it('askChoices refuses a repeated or unknown token and too few picks', async () => {
    for (const picks of [['choice_0', 'choice_0'], ['choice_5'], []]) {
      const { client, requests } = fakeClient();
      const pending = sessionWith(FORM, client).askChoices(
        'Q',
        [
          { value: 1, label: 'One' },
          { value: 2, label: 'Two' },
        ],
        {
          minItems: 1,
        },
      );
      (await nextRequest(requests)).resolve({ action: 'accept', content: { value: picks } });
      await expect(pending).rejects.toMatchObject({ code: 'INVALID_CONTENT' });
    }
  });

  it('askChoices checks a fallback against the offered values and returns the offered ones', async () => {
    const offered = { id: 'eu' };
    const choices = [
      { value: offered, label: 'Europe' },
      { value: { id: 'us' }, label: 'United States' },
    ];
    const result = await sessionWith({}).askChoices('Regions?', choices, {
      fallback: () => new ElicitationAccepted([{ id: 'eu' }]),
      equals: (a, b) => a.id === b.id,
    });
    if (result.status !== 'accepted') throw new Error('not accepted');
    expect(result.value[0]).toBe(offered);
    await expect(
      sessionWith({}).askChoices('Regions?', choices, {
        fallback: () => new ElicitationAccepted([{ id: 'mars' }]),
      }),
    ).rejects.toMatchObject({ code: 'FALLBACK_VALUE_NOT_OFFERED' });
  });

  it('askConfirm and askText run their fallbacks', async () => {
    expect(
      await sessionWith({}).askConfirm('Q', { fallback: () => new ElicitationAccepted(true) }),
    ).toStrictEqual(new ElicitationAccepted(true, 'fallback'));
    const cancelled = new ElicitationCancelled();
    expect(await sessionWith(null).askText('Q', { fallback: async () => cancelled })).toBe(cancelled);
  });
});

describe('no client capabilities recorded', () => {
  it('throws ClientCapabilitiesNotRecordedError from every ask method and createElicitation, sending nothing and running no fallback', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(undefined, client);
    const fallback = vi.fn(() => new ElicitationDeclined());
    const attempts: Array<Promise<unknown>> = [
      session.askChoice('Q', [{ value: 1, label: 'One' }], { fallback }),
      session.askForm('Q', release, { fallback }),
      session.askConfirm('Q', { fallback }),
      session.askText('Q', { fallback }),
      session.askChoices('Q', [{ value: 1, label: 'One' }], { fallback }),
      session.createElicitation('Q', { mode: 'url', elicitationId: 'e1', url: 'https://example.com' }),
    ];
    const modes = ['form', 'form', 'form', 'form', 'form', 'url'];
    for (const [index, attempt] of attempts.entries()) {
      const error = await attempt.catch((caught: unknown) => caught);
      expect(ClientCapabilitiesNotRecordedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'CLIENT_CAPABILITIES_NOT_RECORDED',
        name: 'ClientCapabilitiesNotRecordedError',
        mode: modes[index],
      });
      expect((error as Error).message).toContain('sessions.initialize(');
    }
    expect(fallback).not.toHaveBeenCalled();
    expect(requests).toHaveLength(0);
    expect(session.supportsElicitation('form')).toBe(false);
  });

  it('is an ElicitationUnsupportedError, so code written to the documented contract catches it', async () => {
    // The documented way to handle a client that cannot show forms (docs/typed-elicitation.md).
    async function askToContinue(session: ReturnType<typeof sessionWith>) {
      try {
        return await session.askChoice('Continue?', [{ value: true, label: 'Continue' }]);
      } catch (error) {
        if (ElicitationUnsupportedError.isInstance(error)) return 'unsupported' as const;
        throw error;
      }
    }
    expect(await askToContinue(sessionWith(undefined, fakeClient().client))).toBe('unsupported');
    const error = await sessionWith(undefined, fakeClient().client)
      .askForm('Q', release)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ElicitationUnsupportedError);
    expect(error).toBeInstanceOf(ClientCapabilitiesNotRecordedError);
    expect((error as ElicitationUnsupportedError).mode).toBe('form');
    // The plain unsupported case stays distinct: a client that advertised nothing is not "not recorded".
    const unsupported = await sessionWith(null, fakeClient().client)
      .askForm('Q', release)
      .catch((caught: unknown) => caught);
    expect(ClientCapabilitiesNotRecordedError.isInstance(unsupported)).toBe(false);
    expect(unsupported).toMatchObject({ code: 'ELICITATION_UNSUPPORTED', mode: 'form' });
  });
});

describe('AcpSessionContext.createElicitation scope', () => {
  const requestedSchema = { properties: { tag: { type: 'string' as const } }, required: ['tag' as const] };

  it('fills in this session, and the tool call from the options', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const pending = session.createElicitation(
      'Tag?',
      { mode: 'form', requestedSchema },
      { toolCallId: 'call-9' },
    );
    (await nextRequest(requests)).resolve({ action: 'decline' });
    await pending;
    expect(requests[0]?.params).toStrictEqual({
      sessionId: 'session-1',
      mode: 'form',
      requestedSchema,
      toolCallId: 'call-9',
      message: 'Tag?',
    });
  });

  it('keeps a tool call named by the mode, and a request scope as it is', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const withTool = session.createElicitation(
      'Q',
      { mode: 'form', requestedSchema, toolCallId: 'call-1' },
      { toolCallId: 'call-2' },
    );
    (await nextRequest(requests)).resolve({ action: 'decline' });
    await withTool;
    expect(requests[0]?.params).toMatchObject({ sessionId: 'session-1', toolCallId: 'call-1' });

    const requestScoped = session.createElicitation('Q', {
      mode: 'form',
      requestedSchema,
      requestId: 'init-1',
    });
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    requests[1]?.resolve({ action: 'decline' });
    await requestScoped;
    expect(requests[1]?.params).toStrictEqual({
      mode: 'form',
      requestedSchema,
      requestId: 'init-1',
      message: 'Q',
    });
  });
});
