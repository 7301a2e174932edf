// The session lifecycle of createAiSdkAgent over real stores, with the SDK client (@acpkit/testing) and the scripted
// model: capabilities as the store supports them, session/list (cwd, cursor), load (replay, then the model sees the
// stored history), resume (no replay), close, delete, session_info_update, and every refusal as a JSON-RPC error.
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSessionStore, memorySessionStore, type SessionStore } from '@acpkit/sessions';
import { sqliteSessionStore } from '@acpkit/sessions/sqlite';
import { connectTestClient, type TestClient } from '@acpkit/testing';
import { type ListSessionsResponse, methods, RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioAgentAi6 } from './support/ai6.js';
import { failure } from './support/failure.js';

const clients: TestClient[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function connect(agentOptions: Record<string, unknown>, cwd = '/work'): Promise<TestClient> {
  const client = await connectTestClient(scenarioAgentAi6(agentOptions).app, { cwd });
  clients.push(client);
  return client;
}

/** The agent's message text a client received since transcript position `before`. */
function agentTextSince(client: TestClient, before: number): string {
  return client.transcript
    .slice(before)
    .flatMap((event) =>
      event.kind === 'session-update' &&
      event.update.sessionUpdate === 'agent_message_chunk' &&
      event.update.content.type === 'text'
        ? [event.update.content.text]
        : [],
    )
    .join('');
}

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'acpkit-ai-sdk-sessions-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

const prompt = (client: TestClient, sessionId: string, text: string) =>
  client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
const load = (client: TestClient, sessionId: string, cwd = '/work') =>
  client.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
const resume = (client: TestClient, sessionId: string, cwd = '/work') =>
  client.agent.request(methods.agent.session.resume, { sessionId, cwd });
const list = (client: TestClient, params: { cwd?: string; cursor?: string } = {}) =>
  client.agent.request(methods.agent.session.list, params) as Promise<ListSessionsResponse>;

const stores: [string, () => Promise<SessionStore>][] = [
  ['memory', async () => memorySessionStore()],
  ['file', async () => fileSessionStore({ directory: await temporaryDirectory() })],
  ['sqlite', async () => sqliteSessionStore({ path: join(await temporaryDirectory(), 'sessions.db') })],
];

describe.each(stores)('createAiSdkAgent sessions over the %s store', (_name, makeStore) => {
  it('advertises load, list, resume, close and delete, and lists sessions of a cwd newest first, page by page', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const client = await connect({ sessionStore });
    expect(client.initialize.agentCapabilities).toMatchObject({
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    });
    await prompt(client, client.sessionId, 'hello');
    const ids = [client.sessionId];
    for (const cwd of ['/work', '/other', '/work']) {
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
      await prompt(client, sessionId, `hello from ${cwd}`);
      ids.push(sessionId);
    }
    const all = await list(client);
    expect(all.sessions.map((session) => session.sessionId)).toEqual([...ids].reverse());
    const first = await list(client, { cwd: '/work' });
    expect(first.sessions.map((session) => session.sessionId)).toEqual([ids[3], ids[1], ids[0]]);
    expect(first.sessions[0]).toMatchObject({ cwd: '/work', title: 'hello from /work' });
    expect(Date.parse(first.sessions[0]?.updatedAt ?? '')).not.toBeNaN();
    expect((await failure(list(client, { cursor: 'forged' }))).code).toBe(-32602);
  });

  it('loads a session in a new connection: replays it, then the model continues from the stored messages', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const first = await connect({ sessionStore });
    await first.prompt('hello');
    await first.prompt('history');
    await first.close();
    const second = await connect({ sessionStore });
    const before = second.transcript.length;
    await load(second, first.sessionId);
    const replayed = second.transcript
      .slice(before)
      .flatMap((event) => (event.kind === 'session-update' ? [event.update] : []));
    expect(replayed.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
      'user_message_chunk',
      'agent_message_chunk',
      'session_info_update',
    ]);
    expect(replayed.at(-1)).toMatchObject({ title: 'hello' });
    const turn = await prompt(second, first.sessionId, 'history');
    expect(turn.stopReason).toBe('end_turn');
    // The scripted model counts the user messages it was given: two restored, one new.
    const text = agentTextSince(second, before);
    expect(text).toContain('user messages=3');
  });

  it('resumes without replay, and the model still sees the stored history', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const first = await connect({ sessionStore });
    await first.prompt('hello');
    const second = await connect({ sessionStore });
    const before = second.transcript.length;
    expect(await resume(second, first.sessionId)).toEqual({});
    expect(second.transcript.length).toBe(before);
    await prompt(second, first.sessionId, 'history');
    const text = agentTextSince(second, before);
    expect(text).toContain('user messages=2');
  });

  it('sends session_info_update with the title and updatedAt after each turn; the sessionTitle hook names it', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const client = await connect({
      sessionStore,
      sessionTitle: ({ text }: { text: string }) => `Task: ${text.toUpperCase()}`,
    });
    const turn = await client.prompt('hello\nsecond line');
    const info = turn.updates.filter((update) => update.sessionUpdate === 'session_info_update');
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ title: 'Task: HELLO SECOND LINE' });
    const stored = await sessionStore.get(client.sessionId);
    expect(info[0]).toMatchObject({ updatedAt: stored?.updatedAt });
    const next = await client.prompt('history');
    const later = next.updates.find((update) => update.sessionUpdate === 'session_info_update');
    expect(later).toMatchObject({ title: 'Task: HELLO SECOND LINE' });
    expect((later as { updatedAt: string }).updatedAt >= (info[0] as { updatedAt: string }).updatedAt).toBe(
      true,
    );
  });

  it('closes a session (its prompt is refused until it is loaded again) and deletes one (gone from list and load)', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const client = await connect({ sessionStore });
    await client.prompt('hello');
    expect(await client.agent.request(methods.agent.session.close, { sessionId: client.sessionId })).toEqual(
      {},
    );
    expect((await failure(prompt(client, client.sessionId, 'hello'))).code).toBe(-32002);
    expect((await sessionStore.get(client.sessionId))?.version).toBeGreaterThan(0);
    await resume(client, client.sessionId);
    expect((await prompt(client, client.sessionId, 'history')).stopReason).toBe('end_turn');

    expect(await client.agent.request(methods.agent.session.delete, { sessionId: client.sessionId })).toEqual(
      {},
    );
    expect(await sessionStore.get(client.sessionId)).toBeUndefined();
    expect((await list(client)).sessions).toEqual([]);
    expect((await failure(load(client, client.sessionId))).code).toBe(-32002);
    expect((await failure(prompt(client, client.sessionId, 'hello'))).code).toBe(-32002);
    // The agent answers -32002; the SDK's client reads -32002 on session/delete and session/close as done ({}).
    expect(await client.agent.request(methods.agent.session.delete, { sessionId: client.sessionId })).toEqual(
      {},
    );
  });

  it('answers hostile and unknown session ids with -32002 or -32602, and stores nothing for them', async () => {
    const sessionStore = await makeStore();
    cleanups.push(() => sessionStore.close());
    const client = await connect({ sessionStore });
    for (const sessionId of ['../../etc/passwd', '/etc/passwd', 'no-such-session']) {
      expect((await failure(load(client, sessionId))).code).toBe(-32002);
      expect((await failure(resume(client, sessionId))).code).toBe(-32002);
      expect(await client.agent.request(methods.agent.session.delete, { sessionId })).toEqual({});
    }
    const tooLong = await failure(load(client, 'x'.repeat(5_000)));
    expect(tooLong.code).toBe(-32602);
    expect(tooLong.data).toMatchObject({ code: 'INVALID_SESSION_ID' });
    expect((await list(client)).sessions.map((session) => session.sessionId)).toEqual([client.sessionId]);
  });
});

describe('createAiSdkAgent session refusals', () => {
  it('refuses a stale turn (another server wrote the session) with -32600 STALE_WRITE, and loads the stored one after', async () => {
    const sessionStore = fileSessionStore({ directory: await temporaryDirectory() });
    const a = await connect({ sessionStore });
    await a.prompt('hello');
    const b = await connect({ sessionStore });
    await resume(b, a.sessionId);
    await prompt(b, a.sessionId, 'hello'); // b's turn is stored first
    const stale = await failure(a.prompt('history'));
    expect(stale.code).toBe(-32600);
    expect(stale.data).toMatchObject({ code: 'STALE_WRITE', sessionId: a.sessionId, stopReason: 'end_turn' });
    expect(stale.message).toContain('load the session again and retry the turn');
    // a's copy was dropped: resuming gives the stored history (b's turns), and saving works again.
    await resume(a, a.sessionId);
    const turn = await prompt(a, a.sessionId, 'history');
    expect(turn.stopReason).toBe('end_turn');
    expect((await sessionStore.get(a.sessionId))?.version).toBe(4);
  });

  it('answers a corrupt stored session with -32603 CORRUPT_RECORD, and other sessions still load', async () => {
    const directory = await temporaryDirectory();
    const sessionStore = fileSessionStore({ directory });
    const client = await connect({ sessionStore });
    await client.prompt('hello');
    const other = await client.agent.request(methods.agent.session.new, { cwd: '/work', mcpServers: [] });
    const [victim] = (await readdir(directory)).filter((name) => name.endsWith('.session')).sort();
    await writeFile(join(directory, victim as string), 'not json at all\n');
    const results = await Promise.allSettled([load(client, client.sessionId), load(client, other.sessionId)]);
    const rejected = results.filter((result) => result.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toMatchObject({ code: -32603, data: { code: 'CORRUPT_RECORD' } });
  });

  it('answers a session whose stored messages are not model messages with CORRUPT_RECORD, not a model call', async () => {
    const sessionStore = memorySessionStore();
    await sessionStore.save({
      sessionId: 'forged',
      expectedVersion: 0,
      cwd: '/work',
      append: [{ messages: [{ role: 'wizard', content: 42 }], transcript: [] }],
    });
    const client = await connect({ sessionStore });
    const error = await failure(resume(client, 'forged'));
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ code: 'CORRUPT_RECORD', sessionId: 'forged' });
  });

  it('answers a store that is down with -32603 STORE_UNAVAILABLE on prompt, new and list, and stays up', async () => {
    const directory = join(await temporaryDirectory(), 'sessions');
    const sessionStore = fileSessionStore({ directory });
    const client = await connect({ sessionStore });
    await client.prompt('hello');
    // The store's directory is moved away and a file stands in its place: every write and read fails.
    await rename(directory, `${directory}.aside`);
    await writeFile(directory, 'not a directory');
    const turn = await failure(client.prompt('hello'));
    expect(turn.code).toBe(-32603);
    expect(turn.data).toMatchObject({ code: 'STORE_UNAVAILABLE', stopReason: 'end_turn' });
    expect(turn.message).toContain('Check that it is up and retry');
    for (const request of [
      client.agent.request(methods.agent.session.new, { cwd: '/work', mcpServers: [] }),
      list(client),
      load(client, client.sessionId),
    ]) {
      expect(await failure(request)).toMatchObject({ code: -32603, data: { code: 'STORE_UNAVAILABLE' } });
    }
    // Back up: the turn the store missed is saved with the next one.
    await rm(directory);
    await rename(`${directory}.aside`, directory);
    expect((await client.prompt('history')).text).toContain('user messages=3');
    expect((await sessionStore.get(client.sessionId))?.version).toBeGreaterThan(0);
  });

  it('refuses a turn past the store’s per-session bound with -32600 SESSION_TOO_LARGE', async () => {
    const sessionStore = memorySessionStore({ maxSessionBytes: 2_000 });
    const client = await connect({ sessionStore });
    let error: RequestError | undefined;
    for (let turn = 0; turn < 20 && error === undefined; turn++) {
      error = await client.prompt('hello').then(
        () => undefined,
        (caught: unknown) => caught as RequestError,
      );
    }
    expect(error).toBeInstanceOf(RequestError);
    expect(error?.code).toBe(-32600);
    expect(error?.data).toMatchObject({
      code: 'SESSION_TOO_LARGE',
      maxSessionBytes: 2_000,
      stopReason: 'end_turn',
    });
    expect(error?.message).toContain('start a new session');
    expect((await sessionStore.get(client.sessionId))?.bytes).toBeLessThanOrEqual(2_000);
  });

  it('without a store advertises only session/close, and close frees the session', async () => {
    const client = await connect({ sessionStore: null });
    expect(client.initialize.agentCapabilities).toMatchObject({
      loadSession: false,
      sessionCapabilities: { close: {} },
    });
    expect(client.initialize.agentCapabilities?.sessionCapabilities?.list).toBeUndefined();
    await client.prompt('hello');
    await client.agent.request(methods.agent.session.close, { sessionId: client.sessionId });
    expect((await failure(prompt(client, client.sessionId, 'hello'))).code).toBe(-32002);
    expect(await client.agent.request(methods.agent.session.close, { sessionId: client.sessionId })).toEqual(
      {},
    );
  });
});
