// The example as its README shows it, with LangChain's own fake chat model: a plan (write_todos → ACP plan), a
// permission request before the deploy (allow, edit as a form, reject), the report; in-process and as the built
// stdio agent.
import { existsSync } from 'node:fs';
import { connectTestClient, spawnTestClient, type TestClient, type TestClientOptions } from '@acpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import createDefault, { createReleaseAgent } from '../src/index.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(options: TestClientOptions): Promise<TestClient> {
  const client = await connectTestClient(createReleaseAgent(), options);
  clients.push(client);
  return client;
}

describe('createReleaseAgent with the scripted model', () => {
  it('plans, asks permission to deploy, deploys and reports', async () => {
    expect(createDefault).toBe(createReleaseAgent);
    const client = await connect({ permissions: 'allow' });
    const turn = await client.prompt('Release checkout-service please');
    expect(turn.stopReason).toBe('end_turn');
    const plan = turn.updates.find((update) => update.sessionUpdate === 'plan');
    expect(plan).toMatchObject({
      entries: [{ content: 'Deploy to staging', status: 'in_progress' }, { content: 'Report the result' }],
    });
    expect(turn.permissions).toHaveLength(1);
    expect(turn.permissions[0]?.request.toolCall).toMatchObject({
      title: 'deploy',
      rawInput: { environment: 'staging', replicas: 2 },
    });
    expect(turn.text).toContain('Deployed checkout-service 1.4.2 to staging with 2 replicas. All done.');
  });

  it('edit: the deploy arguments as a typed form; the edited call runs', async () => {
    const client = await connect({
      permissions: () => ({ outcome: { outcome: 'selected', optionId: 'edit' } }),
      answers: [{ Environment: 'production', Replicas: '3' }],
    });
    const turn = await client.prompt('Release it');
    expect(turn.text).toContain('to production with 3 replicas');
  });

  it('reject: nothing is deployed and the reply says so', async () => {
    const client = await connect({ permissions: 'reject' });
    const turn = await client.prompt('Release it');
    expect(turn.text).toContain('The deployment did not run.');
  });
});

describe('the built stdio agent (the test command builds it first)', () => {
  it('runs the same conversation over stdio', async () => {
    expect(existsSync(new URL('../dist/agent.js', import.meta.url))).toBe(true);
    const client = await spawnTestClient(['node', new URL('../dist/agent.js', import.meta.url).pathname], {
      permissions: 'allow',
    });
    clients.push(client);
    const turn = await client.prompt('Release checkout-service please');
    expect(turn.text).toContain('All done.');
  });
});
