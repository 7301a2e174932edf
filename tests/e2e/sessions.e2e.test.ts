// Sessions that outlive processes, with the built packages in real processes: an AI SDK agent (tests/e2e/fixtures/
// sessions-agent.mjs, a scripted model that echoes every prompt it was given) over a real file, SQLite file or
// Postgres server. kill -9 during a turn loses no completed turn; `acpkit client` writes a session the SDK client
// lists, loads and continues in another process; two `acpremote serve` processes share one Postgres.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
import {
  type ListSessionsResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connectTestClient,
  declineElicitation,
  processStream,
  type TestClient,
} from './support/acp-client.js';
import { fixturePath } from './support/paths.js';
import { reapAll, spawnCli, spawnProcess, waitUntil } from './support/processes.js';
import { spawnMirror, startServe } from './support/remote-servers.js';

const agentPath = fixturePath('sessions-agent.mjs');
const scratch: string[] = [];
let postgres: TestPostgres;
let schemas = 0;

beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());
afterEach(async () => {
  await reapAll();
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function scratchDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-sessions-e2e-'));
  scratch.push(directory);
  return directory;
}

/** The fixture agent's environment for a fresh store: a new directory, SQLite file or Postgres schema. */
function storeEnvironment(kind: 'file' | 'sqlite' | 'postgres'): Record<string, string> {
  if (kind === 'file') return { ACPKIT_SESSIONS_STORE: `file:${join(scratchDirectory(), 'sessions')}` };
  if (kind === 'sqlite')
    return { ACPKIT_SESSIONS_STORE: `sqlite:${join(scratchDirectory(), 'sessions.db')}` };
  schemas += 1;
  return {
    ACPKIT_SESSIONS_STORE: `postgres:${postgres.connectionString}`,
    ACPKIT_SESSIONS_SCHEMA: `e2e_${schemas}`,
  };
}

/** The fixture agent as a stdio process with an SDK client on its pipes. */
async function stdioAgent(env: Record<string, string>): Promise<{ client: TestClient; pid: number }> {
  const agent = spawnProcess(process.execPath, [agentPath], {
    env,
    collectStdout: false,
  });
  const client = connectTestClient(processStream(agent), declineElicitation);
  await initialize(client);
  return { client, pid: agent.pid };
}

async function initialize(client: TestClient) {
  return client.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
}

/** Sends a prompt and returns the agent's text for that turn. */
async function turn(client: TestClient, sessionId: string, text: string): Promise<string> {
  const before = client.agentText().length;
  await client.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
  return client.agentText().slice(before);
}

function replayedUserTexts(updates: readonly SessionNotification[]): string[] {
  return updates.flatMap(({ update }) =>
    update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text'
      ? [update.content.text]
      : [],
  );
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}

describe.each(['file', 'sqlite', 'postgres'] as const)(
  'kill -9 of the agent during a turn (%s store)',
  (kind) => {
    it('loses no completed turn: after a restart the session lists, loads and continues from them', async () => {
      const store = storeEnvironment(kind);
      const cwd = scratchDirectory();
      const first = await stdioAgent(store);
      const { sessionId } = await first.client.connection.agent.request(methods.agent.session.new, {
        cwd,
        mcpServers: [],
      });
      expect(await turn(first.client, sessionId, 'one')).toBe('Seen 1 prompts: one.');
      expect(await turn(first.client, sessionId, 'two')).toBe('Seen 2 prompts: one | two.');
      // A slow third turn: once its first chunk has arrived, the agent is killed mid-turn.
      const seen = first.client.agentText().length;
      const interrupted = turn(first.client, sessionId, 'slow three').catch((error: unknown) => error);
      await waitUntil(() => first.client.agentText().length > seen, 'the slow turn streams');
      process.kill(first.pid, 'SIGKILL');
      expect(await interrupted).toBeInstanceOf(Error);

      const second = await stdioAgent(store);
      const listed = (await second.client.connection.agent.request(methods.agent.session.list, {
        cwd,
      })) as ListSessionsResponse;
      expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd, title: 'one' })]);
      await second.client.connection.agent.request(methods.agent.session.load, {
        sessionId,
        cwd,
        mcpServers: [],
      });
      expect(replayedUserTexts(second.client.updates)).toEqual(['one', 'two']);
      expect(await turn(second.client, sessionId, 'four')).toBe('Seen 3 prompts: one | two | four.');
    });
  },
);

describe('acpkit client and the SDK client on one SQLite store', () => {
  it('a session written by acpkit client is listed, loaded and continued by the SDK client in another process', async () => {
    const store = storeEnvironment('sqlite');
    const cwd = scratchDirectory();
    const run = spawnCli(
      'acpkit',
      ['client', '--cwd', cwd, '--prompt', 'alpha', '--prompt', 'beta', '--', process.execPath, agentPath],
      { env: store },
    );
    run.child.stdin?.end();
    const exit = await run.closed;
    expect(run.stdout()).toContain('Seen 1 prompts: alpha.');
    expect(run.stdout()).toContain('Seen 2 prompts: alpha | beta.');
    expect(exit.code).toBe(0);

    const { client } = await stdioAgent(store);
    const listed = (await client.connection.agent.request(methods.agent.session.list, {
      cwd,
    })) as ListSessionsResponse;
    expect(listed.sessions).toHaveLength(1);
    const [session] = listed.sessions;
    expect(session).toMatchObject({ cwd, title: 'alpha' });
    const sessionId = session?.sessionId as string;
    await client.connection.agent.request(methods.agent.session.resume, { sessionId, cwd });
    expect(client.updates).toEqual([]);
    expect(await turn(client, sessionId, 'gamma')).toBe('Seen 3 prompts: alpha | beta | gamma.');
  });
});

describe('two acpremote serve processes sharing one Postgres', () => {
  it('list, load and resume a session through either server; a turn on a stale copy is refused', async () => {
    const env = storeEnvironment('postgres');
    const [one, two] = await Promise.all([
      startServe(`${agentPath}:createAgent`, [], { env }),
      startServe(`${agentPath}:createAgent`, [], { env }),
    ]);
    const connect = async (url: string) => {
      const client = connectTestClient(
        processStream(spawnMirror('acpkit run --addr', url)),
        declineElicitation,
      );
      await initialize(client);
      return client;
    };
    const cwd = '/srv/shared';
    const a = await connect(one.url);
    const { sessionId } = await a.connection.agent.request(methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    expect(await turn(a, sessionId, 'first')).toBe('Seen 1 prompts: first.');

    const b = await connect(two.url);
    const listed = (await b.connection.agent.request(methods.agent.session.list, {
      cwd,
    })) as ListSessionsResponse;
    expect(listed.sessions.map((session) => [session.sessionId, session.title])).toEqual([
      [sessionId, 'first'],
    ]);
    await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    expect(replayedUserTexts(b.updates)).toEqual(['first']);
    expect(await turn(b, sessionId, 'second')).toBe('Seen 2 prompts: first | second.');

    // a's copy stopped at 'first': its turn is refused as stale, nothing merged.
    const stale = await rejection(turn(a, sessionId, 'third'));
    expect(stale.code).toBe(-32600);
    expect(stale.data).toMatchObject({ code: 'STALE_WRITE', sessionId });

    // Resumed through server one, the history is the stored one.
    await a.connection.agent.request(methods.agent.session.resume, { sessionId, cwd });
    expect(await turn(a, sessionId, 'third')).toBe('Seen 3 prompts: first | second | third.');
  });
});
