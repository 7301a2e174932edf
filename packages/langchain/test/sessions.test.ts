// Sessions kept by the graph's checkpointer, with the default MemorySaver, a real SQLite file
// (@langchain/langgraph-checkpoint-sqlite) and a real Postgres server (@langchain/langgraph-checkpoint-postgres, on the
// throwaway server of @acpkit/test-support): list, load (replay from the thread's messages), resume, close, delete,
// across connections and, for SQLite and Postgres, across a fresh saver and a new adapter instance (a restart).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
import { connectTestClient, type TestClient } from '@acpkit/testing';
import { methods, RequestError, type SessionUpdate } from '@agentclientprotocol/sdk';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createAgent, tool } from 'langchain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLangChainAgent } from '../src/index.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const lookup = tool(async ({ id }) => `Record ${id}: ok.`, {
  name: 'lookup',
  description: 'Look a record up.',
  schema: z.object({ id: z.string() }),
});

function agentOn(checkpointer: BaseCheckpointSaver) {
  const model = fakeModel();
  for (let index = 0; index < 6; index += 1) {
    model.respondWithTools([{ name: 'lookup', args: { id: `r${index}` }, id: `l${index}` }]);
    model.respond(new AIMessage(`Answer ${index}.`));
  }
  return createLangChainAgent({
    name: 'sessions-agent',
    version: '1.0.0',
    agent: createAgent({ model, tools: [lookup] }),
    checkpointer,
  });
}

async function connect(checkpointer: BaseCheckpointSaver, cwd = '/work/project'): Promise<TestClient> {
  const client = await connectTestClient(agentOn(checkpointer), { cwd });
  clients.push(client);
  return client;
}

function updatesAfter(client: TestClient, index: number): SessionUpdate[] {
  return client.transcript
    .slice(index)
    .filter((event) => event.kind === 'session-update')
    .map((event) => (event as { update: SessionUpdate }).update);
}

const directory = mkdtempSync(join(tmpdir(), 'acpkit-langchain-'));
let postgres: TestPostgres | undefined;
/** Savers holding connections (SQLite files, Postgres pools), closed when the file ends. */
const opened: Array<{ end?: () => Promise<void>; db?: { close(): void } }> = [];
// initdb and a first start take seconds on a loaded machine.
beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  for (const saver of opened.splice(0)) {
    await saver.end?.();
    saver.db?.close();
  }
  await postgres?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** A fresh PostgresSaver on the file's server (its tables made on first use, as an author would call setup()). */
async function postgresSaver(): Promise<BaseCheckpointSaver> {
  const saver = PostgresSaver.fromConnString((postgres as TestPostgres).connectionString);
  opened.push(saver as never);
  await saver.setup();
  return saver;
}

function sqliteSaver(): BaseCheckpointSaver {
  const saver = SqliteSaver.fromConnString(join(directory, 'sessions.db'));
  opened.push(saver as never);
  return saver;
}

type MakeSaver = () => BaseCheckpointSaver | Promise<BaseCheckpointSaver>;
const savers: Array<[string, MakeSaver, MakeSaver | undefined]> = [
  ['MemorySaver', () => new MemorySaver(), undefined],
  ['SqliteSaver (a real SQLite file)', sqliteSaver, sqliteSaver],
  ['PostgresSaver (a real Postgres server)', postgresSaver, postgresSaver],
];

describe.each(savers)('sessions in %s', (_label, makeSaver, reopenSaver) => {
  let saver: BaseCheckpointSaver;
  beforeAll(async () => {
    saver = await makeSaver();
  });

  it('advertises list, resume, close and delete (the saver deletes threads) and loadSession', async () => {
    const client = await connect(saver);
    expect(client.initialize.agentCapabilities).toMatchObject({
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    });
  });

  it('a second connection lists the session with its title and cwd, loads it (replay) and goes on', async () => {
    const first = await connect(saver);
    const firstTurn = await first.prompt('Find record r0 please');
    expect(firstTurn.updates[0]).toEqual({
      sessionUpdate: 'session_info_update',
      title: 'Find record r0 please',
    });
    const second = await connect(saver, '/elsewhere');
    const listed = await second.agent.request(methods.agent.session.list, { cwd: '/work/project' });
    expect(listed.sessions.find((session) => session.sessionId === first.sessionId)).toMatchObject({
      cwd: '/work/project',
      title: 'Find record r0 please',
    });
    const before = second.transcript.length;
    await second.agent.request(methods.agent.session.load, {
      sessionId: first.sessionId,
      cwd: '/work/project',
      mcpServers: [],
    });
    const replayed = updatesAfter(second, before);
    expect(replayed.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(replayed.at(-1)).toMatchObject({ content: { text: 'Answer 0.' } });
    const next = await second.agent.request(methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'and r1' }],
    });
    expect(next.stopReason).toBe('end_turn');
  });

  it('resume opens without replay; close ends it in memory (a prompt then fails) and it stays listed', async () => {
    const first = await connect(saver);
    await first.prompt('remember me');
    await first.agent.request(methods.agent.session.close, { sessionId: first.sessionId });
    await expect(
      first.agent.request(methods.agent.session.prompt, {
        sessionId: first.sessionId,
        prompt: [{ type: 'text', text: 'x' }],
      }),
    ).rejects.toSatisfy((error) => error instanceof RequestError && error.code === -32002);
    const before = first.transcript.length;
    await first.agent.request(methods.agent.session.resume, {
      sessionId: first.sessionId,
      cwd: '/work/project',
    });
    expect(updatesAfter(first, before)).toEqual([]);
    const listed = await first.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.some((session) => session.sessionId === first.sessionId)).toBe(true);
  });

  it('delete removes the thread: it is no longer listed, loadable or resumable', async () => {
    const client = await connect(saver);
    await client.prompt('short-lived');
    await client.agent.request(methods.agent.session.delete, { sessionId: client.sessionId });
    const listed = await client.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.some((session) => session.sessionId === client.sessionId)).toBe(false);
    await expect(
      client.agent.request(methods.agent.session.load, {
        sessionId: client.sessionId,
        cwd: '/',
        mcpServers: [],
      }),
    ).rejects.toSatisfy((error) => error instanceof RequestError && error.code === -32002);
  });

  it('an unknown session id is -32002 for load and resume', async () => {
    const client = await connect(saver);
    for (const method of [methods.agent.session.load, methods.agent.session.resume] as const) {
      await expect(
        client.agent.request(method as typeof methods.agent.session.load, {
          sessionId: 'nope',
          cwd: '/',
          mcpServers: [],
        }),
      ).rejects.toSatisfy((error) => error instanceof RequestError && error.code === -32002);
    }
  });

  if (reopenSaver !== undefined) {
    it('a fresh saver on the same store and a new adapter instance (a restarted agent) list, load and resume the session', async () => {
      const first = await connect(saver);
      await first.prompt('survive a restart');
      const restarted = await connect(await reopenSaver());
      const listed = await restarted.agent.request(methods.agent.session.list, {});
      expect(listed.sessions.find((session) => session.sessionId === first.sessionId)?.title).toBe(
        'survive a restart',
      );
      const before = restarted.transcript.length;
      await restarted.agent.request(methods.agent.session.load, {
        sessionId: first.sessionId,
        cwd: '/w',
        mcpServers: [],
      });
      expect(updatesAfter(restarted, before)[0]).toMatchObject({
        sessionUpdate: 'user_message_chunk',
        content: { text: 'survive a restart' },
      });
      // The thread goes on in the new instance, and a third one resumes it where the second left it.
      const next = await restarted.agent.request(methods.agent.session.prompt, {
        sessionId: first.sessionId,
        prompt: [{ type: 'text', text: 'and after the restart' }],
      });
      expect(next.stopReason).toBe('end_turn');
      const third = await connect(await reopenSaver());
      await third.agent.request(methods.agent.session.resume, { sessionId: first.sessionId, cwd: '/w' });
      const state = await (await reopenSaver()).getTuple({
        configurable: { thread_id: first.sessionId, checkpoint_ns: '' },
      });
      // The checkpoint the third instance resumed from holds both instances' turns.
      const values = state?.checkpoint.channel_values as { messages?: unknown } | undefined;
      const history = JSON.stringify(values?.messages);
      expect(history).toContain('survive a restart');
      expect(history).toContain('and after the restart');
      const resumed = await third.agent.request(methods.agent.session.prompt, {
        sessionId: first.sessionId,
        prompt: [{ type: 'text', text: 'third instance' }],
      });
      expect(resumed.stopReason).toBe('end_turn');
    });
  }
});
