// The deploy-target agent through @acpkit/testing, as an agent author would test it: a real SDK client in the same
// process (and over stdio for the built agent) whose answers are scripted by field title, decline, cancel or a
// function, with the transcript to assert on.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connectTestClient, spawnTestClient, type TestClient } from '@acpkit/testing';
import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import createDefault, {
  createDeployTargetAgent,
  DEPLOY_TARGET_QUESTION,
  UNSUPPORTED_REPLY,
} from '../src/index.js';
import { connectDeployClient, createWirePair } from './support/client.js';

const clients: TestClient[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(options: Parameters<typeof connectTestClient>[1] = {}): Promise<TestClient> {
  const client = await connectTestClient(createDeployTargetAgent(), options);
  clients.push(client);
  return client;
}

describe('createDeployTargetAgent', () => {
  it('is also the default export and returns a fresh app each call', () => {
    expect(createDefault).toBe(createDeployTargetAgent);
    expect(createDeployTargetAgent()).not.toBe(createDeployTargetAgent());
  });
});

describe('deploy-target agent with the @acpkit/testing client', () => {
  it('asks the documented form and replies to the non-default choice picked by its title', async () => {
    const client = await connect({ answers: [{ Choice: 'Preview' }] });
    expect(client.initialize.agentInfo?.name).toBe('deploy-target');
    const turn = await client.prompt('deploy please');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe('Selected: preview');
    expect(turn.elicitations).toHaveLength(1);
    expect(turn.elicitations[0]?.request).toMatchObject({
      sessionId: client.sessionId,
      mode: 'form',
      message: DEPLOY_TARGET_QUESTION,
      requestedSchema: {
        properties: {
          choice: {
            default: 'choice_1',
            oneOf: [
              { const: 'choice_0', title: 'Preview' },
              {
                const: 'choice_1',
                title: 'Production',
                description: 'Deploy to the production environment.',
              },
            ],
          },
        },
      },
    });
  });

  it.each([
    [{ choice: 'choice_1' }, 'Selected: production'],
    ['decline', 'The user declined to choose.'],
    ['cancel', 'The choice was cancelled.'],
  ] as const)('replies to the script %j', async (script, reply) => {
    const client = await connect({ answers: [script] });
    const turn = await client.prompt('deploy please');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe(reply);
  });

  it('gets the default target when the form is answered with its defaults', async () => {
    const client = await connect();
    expect((await client.prompt('deploy please')).text).toBe('Selected: production');
  });

  it("says the client's answer was not usable when the client returns a token it was never offered", async () => {
    const client = await connect({ answers: () => ({ action: 'accept', content: { choice: 'choice_7' } }) });
    expect((await client.prompt('deploy please')).text).toMatch(/^The client's answer was not usable: /);
  });

  it('answers a client without form elicitation with a clear text, and sends no form', async () => {
    const client = await connect({ clientCapabilities: { elicitation: {} } });
    const turn = await client.prompt('deploy please');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe(UNSUPPORTED_REPLY);
    const sent = client.messages.flatMap(({ message }) => ('method' in message ? [message.method] : []));
    expect(sent).not.toContain('elicitation/create');
  });

  it('answers a client that advertised form but answers -32601 with the same text', async () => {
    const client = await connect({
      answers: () => {
        throw RequestError.methodNotFound('elicitation/create');
      },
    });
    expect((await client.prompt('deploy please')).text).toBe(UNSUPPORTED_REPLY);
  });

  it('ends a turn cancelled with session/cancel: $/cancel_request, the cancelled text, stopReason cancelled', async () => {
    let asked!: () => void;
    const questionShown = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let calls = 0;
    const client = await connect({
      answers: (_request, { signal }) => {
        calls += 1;
        if (calls > 1) return { action: 'decline' };
        return new Promise((resolve) => {
          asked();
          signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
        });
      },
    });
    const turn = client.prompt('deploy please');
    await questionShown;
    await client.cancel();
    const cancelled = await turn;
    expect(cancelled.stopReason).toBe('cancelled');
    expect(cancelled.text).toBe('The choice was cancelled.');
    expect(
      client.messages.some(
        ({ direction, message }) =>
          direction === 'to-client' && 'method' in message && message.method === '$/cancel_request',
      ),
    ).toBe(true);
    // The next turn of the same session is a normal one again.
    const next = await client.prompt('deploy please');
    expect(next.stopReason).toBe('end_turn');
    expect(next.text).toBe('The user declined to choose.');
  });

  it('runs as the built stdio agent, answering the scripted choice with nothing but JSON-RPC on stdout', async () => {
    const agentPath = fileURLToPath(new URL('../dist/agent.js', import.meta.url));
    expect(existsSync(agentPath), 'build first: pnpm --filter @acpkit/example-deploy-target... build').toBe(
      true,
    );
    const client = await spawnTestClient([process.execPath, agentPath], { answers: [{ Choice: 'Preview' }] });
    clients.push(client);
    const turn = await client.prompt('deploy please');
    expect(turn.text).toBe('Selected: preview');
    expect(client.transcript.filter((event) => event.kind === 'stdout-noise')).toEqual([]);
  });
});

describe('deploy-target agent with an /unstable SDK client', () => {
  it('replies to an accepted choice the same way', async () => {
    const wire = createWirePair();
    const agentConnection = createDeployTargetAgent().connect(wire.agentSide);
    const client = await connectDeployClient('unstable', wire.clientSide, {
      clientCapabilities: { elicitation: { form: {} } },
      answer: () => ({ action: 'accept', content: { choice: 'choice_0' } }),
    });
    cleanups.push(() => {
      client.connection.close();
      agentConnection.close();
    });
    expect((await client.prompt()).stopReason).toBe('end_turn');
    expect(client.texts).toEqual(['Selected: preview']);
  });
});
