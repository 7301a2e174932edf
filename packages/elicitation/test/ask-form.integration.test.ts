// askForm and its helpers against real SDK 2.4 client apps (stable and /unstable entrypoints) over a recorded
// message stream: every answer the client can give, and the exact params its typed handler validated.
import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AcpSessionContext,
  ClientCapabilitiesNotRecordedError,
  choiceField,
  choicesField,
  ElicitationAccepted,
  ElicitationCancelled,
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
} from './support/harness.js';

const FORM = { elicitation: { form: {} } };
const stable = { tag: 'latest', npmTag: 'latest' };
const next = { tag: 'next', npmTag: 'next' };
const elicitationPackage = { name: '@acpkit/elicitation', directory: 'packages/elicitation' };
const remotePackage = { name: '@acpkit/remote', directory: 'packages/remote' };

const release = z
  .object({
    version: z
      .string()
      .regex(/^\d+\.\d+\.\d+$/)
      .meta({ title: 'Version', description: 'Semantic version, e.g. 1.5.0' }),
    replicas: z.int().min(1).max(5).default(2).meta({ title: 'Replicas' }),
    notify: z.boolean().default(true).meta({ title: 'Notify the team' }),
    date: z.iso.date().optional().meta({ title: 'Release date' }),
    channel: choiceField([
      { value: stable, label: 'Stable', default: true },
      { value: next, label: 'Preview', description: 'Published under the next tag.' },
    ]).meta({ title: 'Channel' }),
    packages: choicesField(
      [
        { value: elicitationPackage, label: 'elicitation', default: true },
        { value: remotePackage, label: 'remote' },
      ],
      { minItems: 1 },
    ).meta({ title: 'Packages' }),
  })
  .meta({ title: 'Release details' });

afterEach(closeAllPairs);

describe.each(['stable', 'unstable'] as const)('askForm against a real %s SDK client', (entrypoint) => {
  it('returns the typed value and the client validated exactly the params that were sent', async () => {
    const seen = deferred<unknown>();
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: ({ params }) => {
        seen.resolve(params);
        return {
          action: 'accept',
          content: { version: '1.5.0', replicas: 3, channel: 'choice_1', packages: ['choice_1', 'choice_0'] },
        };
      },
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askForm('Release details', release) });
    expect((await client.prompt()).stopReason).toBe('end_turn');
    const { result } = await outcome;
    expect(result).toBeInstanceOf(ElicitationAccepted);
    const value = (result as ElicitationAccepted<z.infer<typeof release>>).value;
    expect(value).toEqual({
      version: '1.5.0',
      replicas: 3,
      notify: true,
      channel: next,
      packages: [remotePackage, elicitationPackage],
    });
    expect(value.channel).toBe(next);
    expect(value.packages[0]).toBe(remotePackage);
    // The typed handler parsed the params with the SDK's own schema: nothing was stripped or rejected.
    const [frame] = elicitationFrames(wire);
    expect(await seen.promise).toEqual((frame as { params: unknown }).params);
    expect(frame).toMatchObject({
      params: { sessionId: client.sessionId, mode: 'form', message: 'Release details' },
    });
    expect(JSON.stringify(frame)).not.toContain('@acpkit/remote');
  });

  it.each([
    ['decline', ElicitationDeclined],
    ['cancel', ElicitationCancelled],
  ] as const)('maps the client action %s', async (action, variant) => {
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => ({ action }),
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askForm('Q', release) });
    await client.prompt();
    expect((await outcome).result).toBeInstanceOf(variant);
    expect((await outcome).result).toMatchObject({ source: 'client' });
  });

  it('rejects invalid content with INVALID_CONTENT, the zod issues and the raw content', async () => {
    const content = { version: '1.5', replicas: 9, channel: 'production', packages: [] };
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => ({ action: 'accept', content }),
    });
    const outcome = agent.nextPrompt({ run: (session) => session.askForm('Q', release) });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    const { error } = await outcome;
    expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
    const invalid = error as InvalidElicitationResponseError;
    expect(invalid.code).toBe('INVALID_CONTENT');
    expect(invalid.content).toEqual(content);
    expect(invalid.issues.map((issue) => issue.path.join('.'))).toEqual([
      'version',
      'replicas',
      'channel',
      'packages',
    ]);
  });

  it('answers the helpers: askConfirm, askText and askChoices', async () => {
    const answers = [{ value: true }, { value: 'v1.5.0' }, { value: ['choice_1'] }];
    const { agent, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: () => ({ action: 'accept', content: answers.shift() ?? {} }),
    });
    const outcome = agent.nextPrompt({
      run: async (session) => [
        await session.askConfirm('Publish now?', { default: false }),
        await session.askText('Tag?', { pattern: '^v\\d+\\.\\d+\\.\\d+$' }),
        await session.askChoices('Which packages?', [
          { value: elicitationPackage, label: 'elicitation' },
          { value: remotePackage, label: 'remote' },
        ]),
      ],
    });
    await client.prompt();
    const [confirmed, tag, picked] = (await outcome).result as ElicitationAccepted<unknown>[];
    expect(confirmed).toStrictEqual(new ElicitationAccepted(true, 'client'));
    expect(tag).toStrictEqual(new ElicitationAccepted('v1.5.0', 'client'));
    expect((picked as ElicitationAccepted<unknown[]>).value[0]).toBe(remotePackage);
  });

  it('treats a client without an elicitation handler (-32601) as unsupported: fallback or the error', async () => {
    const { agent, wire, client } = await setUp(entrypoint, { clientCapabilities: FORM });
    const withFallback = agent.nextPrompt({
      run: (session) =>
        session.askForm('Q', release, {
          fallback: () =>
            new ElicitationAccepted({
              version: '1.4.0',
              replicas: 1,
              notify: false,
              channel: stable,
              packages: [],
            }),
        }),
    });
    await client.prompt();
    expect((await withFallback).result).toMatchObject({ status: 'accepted', source: 'fallback' });
    const withoutFallback = agent.nextPrompt({ run: (session) => session.askConfirm('Q') });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    const { error } = await withoutFallback;
    expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
    expect(((error as Error).cause as RequestError).code).toBe(-32601);
    expect(elicitationFrames(wire)).toHaveLength(2);
  });

  it('resolves cancelled on session/cancel after $/cancel_request went to the client', async () => {
    const asked = deferred<void>();
    const { agent, wire, client } = await setUp(entrypoint, {
      clientCapabilities: FORM,
      onElicitation: ({ signal }) =>
        new Promise((resolve) => {
          asked.resolve();
          signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
        }),
    });
    const outcome = agent.nextPrompt({
      run: (session) => session.askChoices('Q', [{ value: 1, label: 'One' }]),
    });
    const prompt = client.prompt();
    await asked.promise;
    await client.cancelSession();
    expect((await outcome).result).toStrictEqual(new ElicitationCancelled('client'));
    await prompt;
    expect(wire.toClient.filter(isCancelRequest)).toEqual([
      {
        jsonrpc: '2.0',
        method: '$/cancel_request',
        params: { requestId: requestIdOf(wire.toClient, 'elicitation/create') },
      },
    ]);
  });
});

describe('an agent that forgot sessions.initialize(...)', () => {
  it('gets ClientCapabilitiesNotRecordedError (an ElicitationUnsupportedError) saying how to fix it, and sends nothing', async () => {
    const agent = createTestAgent({ wrapInitialize: false });
    let handlerCalls = 0;
    const { wire, client } = await setUp(
      'stable',
      {
        clientCapabilities: FORM,
        onElicitation: () => {
          handlerCalls += 1;
          return { action: 'decline' };
        },
      },
      agent,
    );
    for (const ask of [
      (session: AcpSessionContext) =>
        session.askChoice('Q', [{ value: 1, label: 'One' }], { fallback: () => new ElicitationDeclined() }),
      (session: AcpSessionContext) => session.askForm('Q', release),
    ]) {
      const outcome = agent.nextPrompt({ run: ask });
      await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
      const { error } = await outcome;
      expect(ClientCapabilitiesNotRecordedError.isInstance(error)).toBe(true);
      // Code written to the documented contract (catch ElicitationUnsupportedError) catches it too.
      expect(ElicitationUnsupportedError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(ElicitationUnsupportedError);
      expect((error as Error).message).toContain('sessions.initialize(...)');
    }
    expect(handlerCalls).toBe(0);
    expect(elicitationFrames(wire)).toHaveLength(0);
  });

  it('while a client that advertised nothing gets ElicitationUnsupportedError', async () => {
    const { agent, client } = await setUp('stable', { clientCapabilities: {} });
    const outcome = agent.nextPrompt({ run: (session) => session.askForm('Q', release) });
    await expect(client.prompt()).rejects.toBeInstanceOf(RequestError);
    expect(ElicitationUnsupportedError.isInstance((await outcome).error)).toBe(true);
  });
});
