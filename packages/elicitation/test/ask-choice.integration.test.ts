import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ElicitationAccepted,
  ElicitationCancelled,
  ElicitationConnectionClosedError,
  ElicitationDeclined,
  ElicitationUnsupportedError,
  InvalidElicitationResponseError,
} from '../src/index.js';
import {
  closeAllPairs,
  createTestAgent,
  deferred,
  elicitationFrames,
  isCancelRequest,
  requestIdOf,
  setUp,
  TARGETS,
} from './support/harness.js';

const FORM = { elicitation: { form: {} } };

afterEach(closeAllPairs);

describe.each(['stable', 'unstable'] as const)('askChoice against a real %s SDK client', (entrypoint) => {
  it('returns the offered value the client picked, and the client saw the compiled form', async () => {
    const seen = deferred<unknown>();
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: ({ params }) => {
        seen.resolve(params);
        return { action: 'accept', content: { choice: 'choice_1' } };
      },
    });
    const outcome = agent.nextPrompt({
      run: (session) => session.askChoice('Choose a deployment target', TARGETS),
    });
    const response = await client.prompt();
    expect(response.stopReason).toBe('end_turn');
    const { result } = await outcome;
    expect(result).toBeInstanceOf(ElicitationAccepted);
    expect(result).toMatchObject({ status: 'accepted', value: 'production', source: 'client' });
    expect(await seen.promise).toMatchObject({
      sessionId: client.sessionId,
      mode: 'form',
      message: 'Choose a deployment target',
      requestedSchema: {
        required: ['choice'],
        properties: { choice: { title: 'Choice', default: 'choice_1' } },
      },
    });
    // The raw frame carries both description keys.
    const [frame] = elicitationFrames(wire);
    expect(JSON.stringify(frame)).toContain(
      '"acpkit.dev/choice-description":"Deploy to the production environment."',
    );
  });

  it.each([
    ['decline', ElicitationDeclined],
    ['cancel', ElicitationCancelled],
  ] as const)('maps the client action %s', async (action, variant) => {
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => ({ action }),
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await client.prompt();
    expect((await outcome).result).toBeInstanceOf(variant);
    expect((await outcome).result).toMatchObject({ source: 'client' });
  });

  it('rejects an accept with a token that was not issued', async () => {
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => ({ action: 'accept', content: { choice: 'choice_2' } }),
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    const { error } = await outcome;
    expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
  });

  it('treats a client without an elicitation handler (-32601) as unsupported', async () => {
    const { agent, wire, client } = await setUp(entrypoint, { clientCapabilities: FORM });
    const withoutFallback = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    const { error } = await withoutFallback;
    expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(RequestError);
    expect(((error as Error).cause as RequestError).code).toBe(-32601);
    expect(elicitationFrames(wire)).toHaveLength(1);

    const withFallback = agent.nextPrompt({
      run: (session) =>
        session.askChoice('Q', TARGETS, { fallback: () => new ElicitationAccepted('preview') }),
    });
    await client.prompt();
    expect((await withFallback).result).toMatchObject({
      status: 'accepted',
      value: 'preview',
      source: 'fallback',
    });
  });

  it.each([
    ['{ elicitation: {} }', { elicitation: {} }],
    ['{ elicitation: { form: null } }', { elicitation: { form: null } }],
    ['url only', { elicitation: { url: {} } }],
  ])('sends nothing to a client advertising %s', async (_name, clientCapabilities) => {
    let handlerCalls = 0;
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities,
      onElicitation: () => {
        handlerCalls += 1;
        return { action: 'decline' };
      },
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    const { error } = await outcome;
    expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('The connected ACP client does not support form elicitation.');
    expect(handlerCalls).toBe(0);
    expect(elicitationFrames(wire)).toHaveLength(0);
    const methods = wire.toClient.flatMap((message) => ('method' in message ? [message.method] : []));
    expect(methods).not.toContain('session/request_permission');
  });

  it('maps a client answering -32800 to cancelled', async () => {
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => {
        throw RequestError.requestCancelled();
      },
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await client.prompt();
    expect((await outcome).result).toBeInstanceOf(ElicitationCancelled);
  });

  it('sends $/cancel_request when the signal aborts and rejects with signal.reason', async () => {
    const asked = deferred<void>();
    const clientSawCancel = deferred<void>();
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: ({ signal }) =>
        new Promise((_resolve, reject) => {
          asked.resolve();
          signal.addEventListener('abort', () => {
            clientSawCancel.resolve();
            reject(signal.reason);
          });
        }),
    });
    const controller = new AbortController();
    const reason = new Error('the agent gave up');
    const outcome = agent.nextPrompt({
      run: (session) => session.askChoice('Q', TARGETS, { signal: controller.signal }),
    });
    const prompt = client.prompt();
    await asked.promise;
    controller.abort(reason);
    expect((await outcome).error).toBe(reason);
    await clientSawCancel.promise;
    await expect(prompt).rejects.toBeInstanceOf(RequestError);
    const elicitationId = requestIdOf(wire.toClient, 'elicitation/create');
    expect(wire.toClient.filter(isCancelRequest)).toEqual([
      { jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: elicitationId } },
    ]);
  });

  it('resolves cancelled on session/cancel, after $/cancel_request went to the client', async () => {
    const asked = deferred<void>();
    const clientSawCancel = deferred<void>();
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: ({ signal }) =>
        new Promise((resolve) => {
          asked.resolve();
          signal.addEventListener('abort', () => {
            clientSawCancel.resolve();
            resolve({ action: 'cancel' });
          });
        }),
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    const prompt = client.prompt();
    await asked.promise;
    await client.cancelSession();
    const { result } = await outcome;
    expect(result).toBeInstanceOf(ElicitationCancelled);
    expect(result).toMatchObject({ source: 'client' });
    await clientSawCancel.promise;
    expect((await prompt).stopReason).toBe('end_turn');
    const cancelIndex = wire.toClient.findIndex(isCancelRequest);
    const elicitationId = requestIdOf(wire.toClient, 'elicitation/create');
    expect(wire.toClient[cancelIndex]).toMatchObject({ params: { requestId: elicitationId } });
    const promptResponseIndex = wire.toClient.findIndex(
      (message) =>
        'result' in message && (message.result as { stopReason?: string })?.stopReason === 'end_turn',
    );
    expect(cancelIndex).toBeGreaterThan(-1);
    expect(cancelIndex).toBeLessThan(promptResponseIndex);
  });

  it('does not cancel questions of another session on session/cancel', async () => {
    const asked = deferred<void>();
    const answer = deferred<void>();
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: async () => {
        asked.resolve();
        await answer.promise;
        return { action: 'decline' };
      },
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    const prompt = client.prompt();
    await asked.promise;
    await client.connection.agent.notify('session/cancel', { sessionId: 'some-other-session' });
    answer.resolve();
    await prompt;
    expect((await outcome).result).toBeInstanceOf(ElicitationDeclined);
  });

  it('rejects with ElicitationConnectionClosedError within 1 s when the connection drops mid-question', async () => {
    const asked = deferred<void>();
    const { agent, wire, client, agentConnection } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () =>
        new Promise(() => {
          asked.resolve();
        }),
    });
    const outcome = agent.nextPrompt({
      run: (session, signal) => session.askChoice('Q', TARGETS, { signal }),
    });
    const prompt = client.prompt();
    prompt.catch(() => {});
    await asked.promise;
    const cutAt = Date.now();
    wire.disconnect();
    const { error, settledAt } = await outcome;
    expect(ElicitationConnectionClosedError.isInstance(error)).toBe(true);
    expect((error as ElicitationConnectionClosedError).code).toBe('CONNECTION_CLOSED');
    expect(settledAt - cutAt).toBeLessThan(1000);
    await agentConnection.closed;
  });
});

describe('acpSessions', () => {
  it('captures capabilities per connection of one app, even for equal session ids', async () => {
    const agent = createTestAgent({ sameSessionIdForAll: true });
    const supported = await setUp(
      'stable',
      { clientCapabilities: FORM, onElicitation: () => ({ action: 'decline' }) },
      agent,
    );
    const unsupported = await setUp(
      'unstable',
      { clientCapabilities: { elicitation: {} }, onElicitation: () => ({ action: 'decline' }) },
      agent,
    );
    expect(supported.client.sessionId).toBe(unsupported.client.sessionId);
    const first = agent.nextPrompt({ run: async (session) => session.supportsElicitation('form') });
    await unsupported.client.prompt();
    const second = agent.nextPrompt({ run: async (session) => session.supportsElicitation('form') });
    await supported.client.prompt();
    expect((await first).result).toBe(false);
    expect((await second).result).toBe(true);
  });

  it('works in an agent built with the /unstable entrypoint: capabilities and session/cancel reach the session', async () => {
    const agent = createTestAgent({ entrypoint: 'unstable' });
    const asked = deferred<void>();
    let calls = 0;
    const { client, wire } = await setUp(
      'stable',
      {
        clientCapabilities: FORM,
        onElicitation: ({ signal }) => {
          calls += 1;
          if (calls === 1) return { action: 'accept', content: { choice: 'choice_0' } };
          return new Promise((resolve) => {
            asked.resolve();
            signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
          });
        },
      },
      agent,
    );
    const accepted = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    await client.prompt();
    expect((await accepted).result).toMatchObject({ status: 'accepted', value: 'preview' });
    const cancelled = agent.nextPrompt({ run: (session) => session.askChoice('Q', TARGETS) });
    const prompt = client.prompt();
    await asked.promise;
    await client.cancelSession();
    expect((await cancelled).result).toBeInstanceOf(ElicitationCancelled);
    await prompt;
    expect(wire.toClient.filter(isCancelRequest)).toHaveLength(1);
  });
});
