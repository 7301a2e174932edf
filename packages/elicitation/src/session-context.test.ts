import { ChoiceValidationError, InvalidElicitationResponseError } from '@acpkit/choice-schema';
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it, vi } from 'vitest';
import { fakeClient, nextRequest, sessionWith } from '../test/support/fake-client.js';
import {
  ElicitationConnectionClosedError,
  ElicitationScopeError,
  ElicitationUnsupportedError,
  InvalidElicitationFallbackError,
} from './errors.js';
import { ElicitationAccepted, ElicitationCancelled, ElicitationDeclined } from './results.js';
import { AcpSessionContext } from './session-context.js';

const FORM = { elicitation: { form: {} } };
/** What a client that advertised no elicitation at all sends (recorded, but empty). */
const NOTHING = {};
const targets = [
  { value: 'preview', label: 'Preview' },
  {
    value: 'production',
    label: 'Production',
    description: 'Deploy to the production environment.',
    default: true,
  },
] as const;

describe('AcpSessionContext.supportsElicitation', () => {
  it.each([
    ['undefined capabilities', undefined, false, false],
    ['null capabilities', null, false, false],
    ['no elicitation key', {}, false, false],
    ['elicitation null', { elicitation: null }, false, false],
    ['elicitation {}', { elicitation: {} }, false, false],
    ['form null', { elicitation: { form: null } }, false, false],
    ['form {}', { elicitation: { form: {} } }, true, false],
    ['url {}', { elicitation: { url: {} } }, false, true],
    ['both', { elicitation: { form: {}, url: { _meta: {} } } }, true, true],
  ])('%s', (_name, capabilities, form, url) => {
    const session = sessionWith(capabilities);
    expect(session.supportsElicitation('form')).toBe(form);
    expect(session.supportsElicitation('url')).toBe(url);
    expect(session.supportsElicitation({ mode: 'form' })).toBe(form);
    expect(session.supportsElicitation({ mode: 'url' })).toBe(url);
  });

  it('never supports unknown modes', () => {
    const session = sessionWith({ elicitation: { form: {}, url: {}, _meta: {} } });
    expect(session.supportsElicitation({ mode: '_vendor' })).toBe(false);
    expect(session.supportsElicitation({ mode: '_meta' })).toBe(false);
  });
});

describe('AcpSessionContext.askChoice', () => {
  it('sends the compiled form and returns the offered value, from the client', async () => {
    const { client, requests } = fakeClient();
    const offered = { name: 'production' };
    const pending = sessionWith(FORM, client).askChoice(
      'Choose a deployment target',
      [
        { value: { name: 'preview' }, label: 'Preview' },
        { value: offered, label: 'Production', default: true },
      ],
      { toolCallId: 'call-1' },
    );
    const request = await nextRequest(requests);
    expect(request.method).toBe('elicitation/create');
    expect(request.params).toMatchObject({
      sessionId: 'session-1',
      toolCallId: 'call-1',
      mode: 'form',
      message: 'Choose a deployment target',
      requestedSchema: { required: ['choice'], properties: { choice: { default: 'choice_1' } } },
    });
    expect(request.options?.stopWaitingOnCancel).toBe(true);
    request.resolve({ action: 'accept', content: { choice: 'choice_1' } });
    const result = await pending;
    expect(result).toBeInstanceOf(ElicitationAccepted);
    expect(result).toMatchObject({ status: 'accepted', source: 'client' });
    expect((result as ElicitationAccepted<unknown>).value).toBe(offered);
  });

  it.each([
    ['decline', ElicitationDeclined, 'declined'],
    ['cancel', ElicitationCancelled, 'cancelled'],
  ] as const)('maps %s', async (action, variant, status) => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    (await nextRequest(requests)).resolve({ action });
    const result = await pending;
    expect(result).toBeInstanceOf(variant);
    expect(result).toMatchObject({ status, source: 'client' });
  });

  it('rejects an invalid answer with InvalidElicitationResponseError and keeps the raw response', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    const response = { action: 'accept', content: { choice: 'choice_01' } };
    (await nextRequest(requests)).resolve(response);
    const error = await pending.catch((caught: unknown) => caught);
    expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
    expect((error as InvalidElicitationResponseError).response).toBe(response);
  });

  it('rejects an unknown action (a null answer too)', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    (await nextRequest(requests)).resolve(null);
    await expect(pending).rejects.toMatchObject({ code: 'UNSUPPORTED_ACTION' });
  });

  it('validates before anything is sent', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    await expect(session.askChoice('\u00a0', targets)).rejects.toSatisfy(ChoiceValidationError.isInstance);
    await expect(session.askChoice('Q', [])).rejects.toMatchObject({ code: 'EMPTY_CHOICES' });
    expect(requests).toHaveLength(0);
  });

  it('maps a -32800 answer to cancelled', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    (await nextRequest(requests)).reject(RequestError.requestCancelled());
    expect(await pending).toBeInstanceOf(ElicitationCancelled);
  });

  it('passes other wire errors through unchanged', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    const wireError = RequestError.invalidParams({ reason: 'bad' });
    (await nextRequest(requests)).reject(wireError);
    await expect(pending).rejects.toBe(wireError);
  });

  it('maps a non-RequestError failure of a client double to ElicitationConnectionClosedError', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).askChoice('Q', targets);
    const closed = new Error('ACP connection closed');
    (await nextRequest(requests)).reject(closed);
    const error = await pending.catch((caught: unknown) => caught);
    expect(ElicitationConnectionClosedError.isInstance(error)).toBe(true);
    expect((error as Error).cause).toBe(closed);
  });

  describe('unsupported client', () => {
    it.each([
      ['null capabilities', null],
      ['no elicitation key', {}],
      ['elicitation {}', { elicitation: {} }],
      ['form null', { elicitation: { form: null } }],
      ['url only', { elicitation: { url: {} } }],
    ])('throws ElicitationUnsupportedError and sends nothing (%s)', async (_name, capabilities) => {
      const { client, requests, notifications } = fakeClient();
      const error = await sessionWith(capabilities, client)
        .askChoice('Q', targets)
        .catch((caught: unknown) => caught);
      expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
      expect((error as ElicitationUnsupportedError).code).toBe('ELICITATION_UNSUPPORTED');
      expect((error as Error).message).toBe('The connected ACP client does not support form elicitation.');
      expect(requests).toHaveLength(0);
      expect(notifications).toHaveLength(0);
    });

    it('runs a sync fallback and returns the offered value', async () => {
      const { client, requests } = fakeClient();
      const result = await sessionWith(NOTHING, client).askChoice('Q', targets, {
        fallback: () => new ElicitationAccepted('production'),
      });
      expect(result).toMatchObject({ status: 'accepted', value: 'production', source: 'fallback' });
      expect(requests).toHaveLength(0);
    });

    it('runs an async fallback', async () => {
      const declined = new ElicitationDeclined();
      const result = await sessionWith({ elicitation: {} }).askChoice('Q', targets, {
        fallback: async () => declined,
      });
      expect(result).toBe(declined);
    });

    it('uses equals for an async fallback with an equal-but-distinct value', async () => {
      const offered = { id: 'b' };
      const result = await sessionWith(NOTHING).askChoice(
        'Q',
        [
          { value: { id: 'a' }, label: 'A' },
          { value: offered, label: 'B' },
        ],
        {
          fallback: async () => new ElicitationAccepted({ id: 'b' }),
          equals: (a, b) => a.id === (b as typeof a).id,
        },
      );
      expect((result as ElicitationAccepted<unknown>).value).toBe(offered);
    });

    it('propagates a fallback exception unchanged', async () => {
      const failure = new Error('no terminal');
      await expect(
        sessionWith(NOTHING).askChoice('Q', targets, {
          fallback: () => {
            throw failure;
          },
        }),
      ).rejects.toBe(failure);
      await expect(
        sessionWith(NOTHING).askChoice('Q', targets, { fallback: () => Promise.reject(failure) }),
      ).rejects.toBe(failure);
    });

    it('rejects a fallback value that was not offered, and a plain value', async () => {
      await expect(
        sessionWith(NOTHING).askChoice('Q', targets, {
          // An untyped caller: the type system would refuse a value that was not offered.
          fallback: (() => new ElicitationAccepted('staging')) as unknown as () => ElicitationDeclined,
        }),
      ).rejects.toSatisfy(
        (error: unknown) =>
          InvalidElicitationFallbackError.isInstance(error) && error.code === 'FALLBACK_VALUE_NOT_OFFERED',
      );
      const plain = (() => 'preview') as unknown as () => ElicitationDeclined;
      await expect(sessionWith(NOTHING).askChoice('Q', targets, { fallback: plain })).rejects.toThrow(
        /legacyFallback/,
      );
    });

    it('does not run the fallback when form is supported', async () => {
      const { client, requests } = fakeClient();
      const fallback = vi.fn(() => new ElicitationDeclined());
      const pending = sessionWith(FORM, client).askChoice('Q', targets, { fallback });
      (await nextRequest(requests)).resolve({ action: 'accept', content: { choice: 'choice_0' } });
      expect(await pending).toMatchObject({ value: 'preview' });
      expect(fallback).not.toHaveBeenCalled();
    });

    it('treats -32601 from a client that advertised form as unsupported: fallback, else the error with the cause', async () => {
      const first = fakeClient();
      const withFallback = sessionWith(FORM, first.client).askChoice('Q', targets, {
        fallback: () => new ElicitationCancelled(),
      });
      (await nextRequest(first.requests)).reject(RequestError.methodNotFound('elicitation/create'));
      expect(await withFallback).toBeInstanceOf(ElicitationCancelled);

      const second = fakeClient();
      const withoutFallback = sessionWith(FORM, second.client).askChoice('Q', targets);
      const notFound = RequestError.methodNotFound('elicitation/create');
      (await nextRequest(second.requests)).reject(notFound);
      const error = await withoutFallback.catch((caught: unknown) => caught);
      expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
      expect((error as Error).cause).toBe(notFound);
    });
  });

  describe('cancellation', () => {
    it('aborting the signal cancels the request and rejects with signal.reason', async () => {
      const { client, requests } = fakeClient();
      const controller = new AbortController();
      const pending = sessionWith(FORM, client).askChoice('Q', targets, { signal: controller.signal });
      const request = await nextRequest(requests);
      expect(request.options?.cancellationSignal?.aborted).toBe(false);
      const reason = new Error('user gave up');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      // The SDK sends `$/cancel_request` when this signal aborts.
      expect(request.options?.cancellationSignal?.aborted).toBe(true);
    });

    it('an already aborted signal rejects without sending', async () => {
      const { client, requests } = fakeClient();
      const reason = new Error('too late');
      await expect(
        sessionWith(FORM, client).askChoice('Q', targets, { signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
      expect(requests).toHaveLength(0);
    });

    it('cancelPending cancels the request and resolves cancelled', async () => {
      const { client, requests } = fakeClient();
      const session = sessionWith(FORM, client);
      const first = session.askChoice('Q1', targets);
      const second = session.askChoice('Q2', targets);
      await vi.waitFor(() => expect(requests).toHaveLength(2));
      session.cancelPending();
      expect(await first).toMatchObject({ status: 'cancelled', source: 'client' });
      expect(await second).toBeInstanceOf(ElicitationCancelled);
      expect(requests.every((request) => request.options?.cancellationSignal?.aborted)).toBe(true);
      // A late answer changes nothing.
      requests[0]?.resolve({ action: 'accept', content: { choice: 'choice_0' } });
      session.cancelPending();
    });

    it('cancelPending does not touch later calls', async () => {
      const { client, requests } = fakeClient();
      const session = sessionWith(FORM, client);
      session.cancelPending();
      const pending = session.askChoice('Q', targets);
      (await nextRequest(requests)).resolve({ action: 'decline' });
      expect(await pending).toBeInstanceOf(ElicitationDeclined);
    });
  });
});

describe('AcpSessionContext.createElicitation', () => {
  const formMode = {
    mode: 'form' as const,
    sessionId: 'session-1',
    requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } },
  };

  it('sends the mode with the message and returns the raw response', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).createElicitation('Your name?', formMode);
    const request = await nextRequest(requests);
    expect(request.method).toBe('elicitation/create');
    expect(request.params).toEqual({ ...formMode, message: 'Your name?' });
    const response = { action: 'accept', content: { name: 'Ada' }, extra: true };
    request.resolve(response);
    expect(await pending).toBe(response);
  });

  it('refuses an unsupported mode before anything is sent', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith({ elicitation: { form: {} } }, client);
    const urlMode = {
      mode: 'url' as const,
      sessionId: 'session-1',
      elicitationId: 'e1',
      url: 'https://example.com',
    };
    await expect(session.createElicitation('Open', urlMode)).rejects.toSatisfy(
      (error: unknown) =>
        ElicitationUnsupportedError.isInstance(error) &&
        error.message === 'The connected ACP client does not support url elicitation.',
    );
    await expect(sessionWith({ elicitation: {} }, client).createElicitation('Q', formMode)).rejects.toSatisfy(
      ElicitationUnsupportedError.isInstance,
    );
    expect(requests).toHaveLength(0);
  });

  it('refuses a session-scoped mode of another session', async () => {
    const { client, requests } = fakeClient();
    const error = await sessionWith(FORM, client)
      .createElicitation('Q', { ...formMode, sessionId: 'other-session' })
      .catch((caught: unknown) => caught);
    expect(ElicitationScopeError.isInstance(error)).toBe(true);
    expect((error as ElicitationScopeError).code).toBe('SESSION_MISMATCH');
    expect(requests).toHaveLength(0);
  });

  it('allows a request-scoped mode', async () => {
    const { client, requests } = fakeClient();
    const pending = sessionWith(FORM, client).createElicitation('Q', {
      mode: 'form',
      requestId: 7,
      requestedSchema: { type: 'object', properties: {} },
    });
    (await nextRequest(requests)).resolve({ action: 'decline' });
    expect(await pending).toEqual({ action: 'decline' });
  });

  it('resolves { action: "cancel" } on cancelPending and maps -32601 to unsupported', async () => {
    const { client, requests } = fakeClient();
    const session = sessionWith(FORM, client);
    const pending = session.createElicitation('Q', formMode);
    await nextRequest(requests);
    session.cancelPending();
    expect(await pending).toEqual({ action: 'cancel' });

    const second = session.createElicitation('Q', formMode);
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    requests[1]?.reject(RequestError.methodNotFound('elicitation/create'));
    await expect(second).rejects.toSatisfy(ElicitationUnsupportedError.isInstance);
  });

  it('completeElicitation sends elicitation/complete', async () => {
    const { client, notifications } = fakeClient();
    await sessionWith({ elicitation: { url: {} } }, client).completeElicitation('e1');
    expect(notifications).toEqual([{ method: 'elicitation/complete', params: { elicitationId: 'e1' } }]);
  });
});

describe('AcpSessionContext turns', () => {
  it('say and update send session/update for this session', async () => {
    const { client, notifications } = fakeClient();
    const session = sessionWith(FORM, client);
    await session.say('Hello');
    await session.update({ sessionUpdate: 'plan', entries: [] });
    expect(notifications).toEqual([
      {
        method: 'session/update',
        params: {
          sessionId: 'session-1',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } },
        },
      },
      {
        method: 'session/update',
        params: { sessionId: 'session-1', update: { sessionUpdate: 'plan', entries: [] } },
      },
    ]);
  });

  it('say rejects with ElicitationConnectionClosedError when the connection is gone', async () => {
    const { client } = fakeClient();
    const closed = { ...client, notify: async () => Promise.reject(new Error('ACP connection closed')) };
    await expect(sessionWith(FORM, closed).say('Hello')).rejects.toBeInstanceOf(
      ElicitationConnectionClosedError,
    );
  });

  it('a turn signal cancels pending questions, and later ones resolve cancelled without being sent', async () => {
    const { client, requests } = fakeClient();
    const turn = new AbortController();
    const session = new AcpSessionContext({
      sessionId: 's',
      client,
      clientCapabilities: FORM,
      signal: turn.signal,
    });
    expect(session.cancelled).toBe(false);
    const pending = session.askChoice('Q', targets);
    const request = await nextRequest(requests);
    const reason = new Error('prompt cancelled');
    turn.abort(reason);
    expect(await pending).toMatchObject({ status: 'cancelled', source: 'client' });
    expect(request.options?.cancellationSignal?.aborted).toBe(true);
    expect(session.cancelled).toBe(true);
    expect(session.signal.reason).toBe(reason);
    expect(await session.askConfirm('Sure?')).toBeInstanceOf(ElicitationCancelled);
    expect(
      await session.askChoice('Q', targets, { fallback: () => new ElicitationDeclined() }),
    ).toMatchObject({
      status: 'cancelled',
    });
    expect(
      await session.createElicitation('Raw', {
        mode: 'form',
        requestedSchema: { type: 'object', properties: {} },
      }),
    ).toEqual({ action: 'cancel' });
    expect(requests).toHaveLength(1);
  });

  it('a context built on an aborted signal starts cancelled; programming errors still throw', async () => {
    const { client } = fakeClient();
    const session = new AcpSessionContext({
      sessionId: 's',
      client,
      clientCapabilities: FORM,
      signal: AbortSignal.abort(),
    });
    expect(session.cancelled).toBe(true);
    await expect(session.askChoice('', targets)).rejects.toBeInstanceOf(ChoiceValidationError);
    const unrecorded = new AcpSessionContext({ sessionId: 's', client, signal: AbortSignal.abort() });
    await expect(unrecorded.askChoice('Q', targets)).rejects.toMatchObject({
      code: 'CLIENT_CAPABILITIES_NOT_RECORDED',
    });
  });

  it('without a signal the turn is never cancelled by cancelPending', async () => {
    const session = sessionWith(FORM);
    session.cancelPending();
    expect(session.cancelled).toBe(false);
    expect(session.signal.aborted).toBe(false);
  });
});
