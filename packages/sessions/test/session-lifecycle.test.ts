// sessionLifecycle on an agent written on the SDK's builder (a notes agent keeping its own state), over a real file
// store, driven by the SDK client (@acpkit/testing): capabilities, list, load (replay), resume, close, delete, and
// store refusals as JSON-RPC errors.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTestClient, type TestClient } from '@acpkit/testing';
import {
  agent,
  type ListSessionsResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defaultSessionTitle,
  fileSessionStore,
  type SessionStore,
  sessionLifecycle,
  sessionStoreRequestError,
} from '../src/index.js';

/** A builder agent that keeps each session's notes (one entry per prompt) in `store`. */
function notesAgent(store: SessionStore<string>) {
  const sessions = sessionLifecycle(store);
  const open = new Map<string, { version: number; notes: string[]; title: string | null }>();
  let next = 0;
  return agent({ name: 'notes' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { ...sessions.capabilities() },
    }))
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const sessionId = `notes-${++next}-${Date.now()}`;
      open.set(sessionId, { version: 0, notes: [], title: null });
      await store
        .save({ sessionId, expectedVersion: 0, cwd: params.cwd, append: [] })
        .catch((error: unknown) => {
          throw sessionStoreRequestError(error);
        });
      open.set(sessionId, { version: 1, notes: [], title: null });
      return { sessionId };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = open.get(params.sessionId);
      if (session === undefined) throw RequestError.sessionNotFound(params.sessionId);
      const note = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
      session.title ??= defaultSessionTitle(note);
      const saved = await store
        .save({
          sessionId: params.sessionId,
          expectedVersion: session.version,
          cwd: '/notes',
          title: session.title,
          append: [note],
        })
        .catch((error: unknown) => {
          throw sessionStoreRequestError(error);
        });
      session.version = saved.version;
      session.notes.push(note);
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `${session.notes.length} notes` },
        },
      });
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: sessions.infoUpdate(session.title, saved),
      });
      return { stopReason: 'end_turn' as const };
    })
    .onRequest(methods.agent.session.list, sessions.list())
    .onRequest(
      methods.agent.session.load,
      sessions.load(async (stored, { client }) => {
        open.set(stored.sessionId, {
          version: stored.version,
          notes: [...stored.entries],
          title: stored.title,
        });
        for (const note of stored.entries) {
          await client.notify(methods.client.session.update, {
            sessionId: stored.sessionId,
            update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: note } },
          });
        }
      }),
    )
    .onRequest(
      methods.agent.session.resume,
      sessions.resume((stored) => {
        open.set(stored.sessionId, {
          version: stored.version,
          notes: [...stored.entries],
          title: stored.title,
        });
      }),
    )
    .onRequest(
      methods.agent.session.close,
      sessions.close((sessionId) => open.delete(sessionId)),
    )
    .onRequest(
      methods.agent.session.delete,
      sessions.delete((sessionId) => {
        open.delete(sessionId);
      }),
    );
}

const clients: TestClient[] = [];
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function setUp() {
  const directory = await mkdtemp(join(tmpdir(), 'acpkit-lifecycle-'));
  directories.push(directory);
  const store = fileSessionStore({ directory }) as SessionStore<string>;
  const connect = async () => {
    const client = await connectTestClient(notesAgent(store), { cwd: '/notes' });
    clients.push(client);
    return client;
  };
  return { store, connect };
}

async function failure(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('sessionLifecycle on a builder agent', () => {
  it('advertises what it handles, lists, loads with replay in another connection, resumes, closes and deletes', async () => {
    const { store, connect } = await setUp();
    const first = await connect();
    expect(first.initialize.agentCapabilities).toMatchObject({
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    });
    const turn = await first.prompt('Buy milk\nand bread');
    expect(turn.updates.at(-1)).toMatchObject({ sessionUpdate: 'session_info_update', title: 'Buy milk' });
    await first.prompt('Call Bob');

    const second = await connect();
    const listed = (await second.agent.request(methods.agent.session.list, {
      cwd: '/notes',
    })) as ListSessionsResponse;
    expect(listed.sessions.map((session) => session.sessionId)).toEqual([second.sessionId, first.sessionId]);
    expect(listed.sessions[1]).toMatchObject({ title: 'Buy milk', cwd: '/notes' });
    const before = second.transcript.length;
    await second.agent.request(methods.agent.session.load, {
      sessionId: first.sessionId,
      cwd: '/notes',
      mcpServers: [],
    });
    const replayed = second.transcript
      .slice(before)
      .flatMap((event) =>
        event.kind === 'session-update' &&
        event.update.sessionUpdate === 'user_message_chunk' &&
        event.update.content.type === 'text'
          ? [event.update.content.text]
          : [],
      );
    expect(replayed).toEqual(['Buy milk\nand bread', 'Call Bob']);
    const third = await second.agent.request(methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'Pay rent' }],
    });
    expect(third.stopReason).toBe('end_turn');
    expect((await store.get(first.sessionId))?.entries).toEqual([
      'Buy milk\nand bread',
      'Call Bob',
      'Pay rent',
    ]);

    // first's copy is behind: its save is refused as stale, with the store's code.
    const stale = await failure(first.prompt('Stale note'));
    expect(stale.code).toBe(-32600);
    expect(stale.data).toMatchObject({ code: 'STALE_WRITE', expectedVersion: 3, actualVersion: 4 });
    await first.agent.request(methods.agent.session.resume, { sessionId: first.sessionId, cwd: '/notes' });
    expect((await first.prompt('Fresh note')).stopReason).toBe('end_turn');

    expect(await first.agent.request(methods.agent.session.close, { sessionId: first.sessionId })).toEqual(
      {},
    );
    expect((await failure(first.prompt('after close'))).code).toBe(-32002);
    expect(await first.agent.request(methods.agent.session.delete, { sessionId: first.sessionId })).toEqual(
      {},
    );
    expect(await store.get(first.sessionId)).toBeUndefined();
    expect(
      (
        await failure(
          first.agent.request(methods.agent.session.load, {
            sessionId: first.sessionId,
            cwd: '/',
            mcpServers: [],
          }),
        )
      ).code,
    ).toBe(-32002);
  });

  it('answers a forged cursor with -32602 and a hostile id with -32602 or -32002', async () => {
    const { connect } = await setUp();
    const client = await connect();
    const forged = await failure(client.agent.request(methods.agent.session.list, { cursor: 'Zm9yZ2Vk' }));
    expect(forged.code).toBe(-32602);
    expect(forged.data).toMatchObject({ code: 'INVALID_CURSOR' });
    const tooLong = await failure(
      client.agent.request(methods.agent.session.resume, { sessionId: 'x'.repeat(2_000), cwd: '/' }),
    );
    expect(tooLong.data).toMatchObject({ code: 'INVALID_SESSION_ID' });
    expect(
      (
        await failure(
          client.agent.request(methods.agent.session.resume, { sessionId: '../../../etc/passwd', cwd: '/' }),
        )
      ).code,
    ).toBe(-32002);
  });
});
