// The example as its README shows it: the offline scripted model streams, asks where to deploy (a form), asks
// permission to deploy (the tool needs approval) and reports; in-process and as the built stdio agent.
import { existsSync } from 'node:fs';
import { connectTestClient, spawnTestClient, type TestClient } from '@acpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import createDefault, {
  createReleaseHelperAgent,
  createScriptedReleaseModel,
  modelFromEnvironment,
} from '../src/index.js';

const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(options: Parameters<typeof connectTestClient>[1]): Promise<TestClient> {
  const client = await connectTestClient(
    createReleaseHelperAgent({ model: createScriptedReleaseModel() }),
    options,
  );
  clients.push(client);
  return client;
}

describe('createReleaseHelperAgent with the scripted model', () => {
  it('is the default export; without AI_GATEWAY_API_KEY the model is the scripted one, with it a gateway model id', () => {
    expect(createDefault).toBe(createReleaseHelperAgent);
    expect(modelFromEnvironment({})).toMatchObject({ provider: 'acpkit-example' });
    expect(modelFromEnvironment({ AI_GATEWAY_API_KEY: 'key' })).toBe('openai/gpt-5-mini');
    expect(
      modelFromEnvironment({ AI_GATEWAY_API_KEY: 'key', ACPKIT_EXAMPLE_MODEL: 'anthropic/claude-sonnet-4' }),
    ).toBe('anthropic/claude-sonnet-4');
  });

  it('streams its thinking and text, asks where to deploy, asks permission, deploys', async () => {
    const client = await connect({ answers: [{ Choice: 'Production' }], permissions: 'allow' });
    expect(client.initialize.agentInfo).toMatchObject({ name: 'release-helper', version: '0.0.0' });
    const turn = await client.prompt('Release checkout-service please');
    expect(turn.stopReason).toBe('end_turn');
    expect(
      turn.updates.filter((update) => update.sessionUpdate === 'agent_thought_chunk').length,
    ).toBeGreaterThan(3);
    expect(turn.elicitations[0]?.request).toMatchObject({
      message: 'Which environment should checkout-service 1.4.2 go to?',
    });
    expect(turn.permissions[0]?.request.toolCall).toMatchObject({
      title: 'Deploy checkout-service 1.4.2 to production',
      kind: 'execute',
    });
    expect(turn.text).toBe(
      'Let me ask where to deploy. Deploying checkout-service 1.4.2 to production. Done: checkout-service 1.4.2 is ' +
        'live. {"service":"checkout-service","version":"1.4.2","environment":"production","status":"deployed"}',
    );
  });

  it('deploys nothing when the user rejects the deployment or declines the question', async () => {
    const rejected = await connect({ answers: [{ Choice: 'Staging' }], permissions: 'reject' });
    expect((await rejected.prompt('Release')).text).toContain(
      'The deployment was not approved, so nothing changed.',
    );
    const declined = await connect({ answers: ['decline'] });
    const turn = await declined.prompt('Release');
    expect(turn.text).toContain('Without an environment I will not deploy.');
    expect(turn.permissions).toHaveLength(0);
  });
});

describe('node examples/ai-sdk-agent (stdio)', () => {
  it('runs the built agent over stdio: a whole release conversation, stdout only JSON-RPC', async () => {
    expect(
      existsSync(new URL('../dist/agent.js', import.meta.url)),
      'build first: pnpm --filter @acpkit/example-ai-sdk-agent... build',
    ).toBe(true);
    const client = await spawnTestClient([process.execPath, new URL('..', import.meta.url).pathname], {
      answers: [{ Choice: 'Staging' }],
      permissions: 'allow',
      env: { ...process.env, ACPKIT_EXAMPLE_CHUNK_DELAY_MS: '0', AI_GATEWAY_API_KEY: '' },
    });
    clients.push(client);
    const turn = await client.prompt('Release it');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toContain('checkout-service 1.4.2 is live.');
    expect(client.transcript.filter((event) => event.kind === 'stdout-noise')).toEqual([]);
  });
});
