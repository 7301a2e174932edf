// createAiSdkAgent on ai 6, in-process, for what the shared suite does not cover: sessions across connections,
// limits, prompt content, options that reach the model, the author's hooks, a failing session store.

import { memorySessionStore, type SessionStore, SessionStoreError } from '@acpkit/sessions';
import { connectTestClient, type TestClient } from '@acpkit/testing';
import { methods } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { readStoredSession } from '../src/session-store.js';
import { scenarioAgentAi6 } from './support/ai6.js';
import { failure } from './support/failure.js';

const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(
  agentOptions: Record<string, unknown> = {},
  clientOptions: Parameters<typeof connectTestClient>[1] = {},
): Promise<TestClient> {
  const client = await connectTestClient(scenarioAgentAi6(agentOptions).app, clientOptions);
  clients.push(client);
  return client;
}

/** The user messages a store holds for a session, as the agent reads them back. */
async function storedUserMessages(store: SessionStore, sessionId: string) {
  const stored = await store.get(sessionId);
  if (stored === undefined) throw new Error(`${sessionId} is not stored`);
  return readStoredSession(stored).messages.filter((message) => message.role === 'user');
}

function load(client: TestClient, sessionId: string) {
  return client.agent.request(methods.agent.session.load, { sessionId, cwd: '/elsewhere', mcpServers: [] });
}

describe('sessions', () => {
  it('a store shared by two agents lets a second connection load the session: replay, then the history goes on', async () => {
    const sessionStore = memorySessionStore();
    const first = await connect({ sessionStore });
    await first.prompt('hello');
    await first.prompt('history');
    const second = await connect({ sessionStore });
    const before = second.transcript.length;
    await load(second, first.sessionId);
    const replayed = second.transcript.slice(before);
    expect(
      replayed.map((event) => (event.kind === 'session-update' ? event.update.sessionUpdate : event.kind)),
    ).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
      'user_message_chunk',
      'agent_message_chunk',
      'session_info_update',
    ]);
    expect(
      replayed.every((event) => event.kind === 'session-update' && event.sessionId === first.sessionId),
    ).toBe(true);
    const loaded = await second.agent.request(methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'history' }],
    });
    expect(loaded.stopReason).toBe('end_turn');
    expect(await storedUserMessages(sessionStore, first.sessionId)).toHaveLength(3);
    expect((await sessionStore.get(first.sessionId))?.cwd).toBe('/elsewhere');
  });

  it('refuses to load an unknown session and to prompt a session this agent does not hold open (-32002)', async () => {
    const sessionStore = memorySessionStore();
    const owner = await connect({ sessionStore });
    const stranger = await connect({ sessionStore });
    expect((await failure(load(stranger, 'no-such-session'))).code).toBe(-32002);
    const thrown = await failure(
      stranger.agent.request(methods.agent.session.prompt, {
        sessionId: owner.sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      }),
    );
    expect(thrown.code).toBe(-32002);
    expect(thrown.data).toEqual({ sessionId: owner.sessionId });
  });

  it('refuses a second prompt while one runs in the same session (-32600), then runs the next one', async () => {
    const client = await connect();
    const stalled = client.prompt('stall');
    const second = await failure(client.prompt('hello'));
    expect(second.code).toBe(-32600);
    expect(second.message).toContain('a prompt is already running in this session');
    await client.cancel();
    expect((await stalled).stopReason).toBe('cancelled');
    expect((await client.prompt('hello')).stopReason).toBe('end_turn');
  });

  it('keeps at most maxOpenSessions open: the least recently used idle one closes, and loads again', async () => {
    const client = await connect({ maxOpenSessions: 2 });
    const prompt = (sessionId: string, text: string) =>
      client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    const second = await client.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
    await prompt(client.sessionId, 'hello'); // the first session is now the most recently used
    const third = await client.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
    expect((await failure(prompt(second.sessionId, 'hello'))).code).toBe(-32002);
    expect((await prompt(client.sessionId, 'history')).stopReason).toBe('end_turn');
    expect((await prompt(third.sessionId, 'hello')).stopReason).toBe('end_turn');
    await load(client, second.sessionId);
    expect((await prompt(second.sessionId, 'history')).stopReason).toBe('end_turn');
  });

  it('refuses a new session when every session at the limit is running a prompt (-32600)', async () => {
    const client = await connect({ maxOpenSessions: 1 });
    const stalled = client.prompt('stall');
    const thrown = await failure(
      client.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] }),
    );
    expect(thrown.code).toBe(-32600);
    expect(thrown.message).toContain('maxOpenSessions');
    await client.cancel();
    expect((await stalled).stopReason).toBe('cancelled');
    await client.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
  });

  it('fails the prompt when the store cannot save the turn, and keeps the session usable', async () => {
    const memory = memorySessionStore();
    let failNext = false;
    const sessionStore: SessionStore = {
      kind: 'flaky',
      maxSessionBytes: memory.maxSessionBytes,
      get: (sessionId) => memory.get(sessionId),
      save: async (write) => {
        if (failNext) {
          failNext = false;
          throw new SessionStoreError('STORE_UNAVAILABLE', 'disk full', { sessionId: write.sessionId });
        }
        return memory.save(write);
      },
      close: () => memory.close(),
    };
    const client = await connect({ sessionStore });
    failNext = true;
    const thrown = await failure(client.prompt('hello'));
    expect(thrown.code).toBe(-32603);
    expect(thrown.message).toContain('the turn ended (end_turn) but was not saved: disk full');
    expect(thrown.data).toMatchObject({ code: 'STORE_UNAVAILABLE', stopReason: 'end_turn' });
    const next = await client.prompt('history');
    expect(next.text).toContain('user messages=2');
    // The next save carried the turn the failed one could not write.
    expect(await storedUserMessages(sessionStore, client.sessionId)).toHaveLength(2);
  });
});

describe('prompt content', () => {
  it('advertises image input with modelInputs.image and hands images, links and embedded resources to the model', async () => {
    const client = await connect({ modelInputs: { image: true } });
    expect(client.initialize.agentCapabilities?.promptCapabilities).toEqual({
      image: true,
      audio: false,
      embeddedContext: true,
    });
    const turn = await client.prompt([
      { type: 'text', text: 'inputs' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      {
        type: 'resource_link',
        uri: 'file:///repo/CHANGELOG.md',
        name: 'CHANGELOG.md',
        mimeType: 'text/markdown',
      },
      { type: 'resource', resource: { uri: 'file:///repo/VERSION', text: '1.4.2', mimeType: 'text/plain' } },
    ]);
    expect(turn.text).toBe(
      'text: inputs | file: image/png | text: Resource link: CHANGELOG.md <file:///repo/CHANGELOG.md>\n' +
        'Media type: text/markdown | text: <resource uri="file:///repo/VERSION">\n1.4.2\n</resource>',
    );
  });

  it('refuses audio the agent did not advertise (-32602) before anything runs', async () => {
    const client = await connect();
    const thrown = await failure(
      client.prompt([
        { type: 'text', text: 'hello' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ]),
    );
    expect(thrown.code).toBe(-32602);
    expect(client.transcript.filter((event) => event.kind === 'session-update')).toHaveLength(0);
    expect((await client.prompt('history')).text).toContain('user messages=1');
  });
});

describe('options that reach the model and the client', () => {
  it('passes callSettings to every model call', async () => {
    const client = await connect({ callSettings: { temperature: 0.25, maxOutputTokens: 321 } });
    expect((await client.prompt('call-settings')).text).toBe('temperature=0.25; maxOutputTokens=321');
  });

  it("shows tool calls with the author's describeToolCall title and kind", async () => {
    const client = await connect({
      describeToolCall: ({ toolName, input }: { toolName: string; input: { query?: string } }) =>
        toolName === 'lookup' ? { title: `Search for ${input.query}`, kind: 'search' } : undefined,
    });
    const turn = await client.prompt('lookup');
    expect(turn.updates.find((update) => update.sessionUpdate === 'tool_call')).toMatchObject({
      title: 'Search for release notes',
      kind: 'search',
    });
  });

  it('keeps the default title when describeToolCall throws, and the turn goes on', async () => {
    const client = await connect({
      describeToolCall: () => {
        throw new Error('display bug');
      },
    });
    const turn = await client.prompt('lookup');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.updates.find((update) => update.sessionUpdate === 'tool_call')).toMatchObject({
      title: 'lookup',
    });
  });

  it('stops at maxSteps with max_turn_requests and answers every tool call it made', async () => {
    const sessionStore = memorySessionStore();
    const client = await connect({ maxSteps: 2, sessionStore });
    const turn = await client.prompt('loop');
    expect(turn.stopReason).toBe('max_turn_requests');
    const calls = turn.updates.filter((update) => update.sessionUpdate === 'tool_call');
    expect(calls).toHaveLength(2);
    // The next turn's prompt is well formed: every tool call of the last one has its result.
    expect((await client.prompt('history')).stopReason).toBe('end_turn');
  });
});
