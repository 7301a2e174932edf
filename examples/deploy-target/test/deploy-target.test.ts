import { afterEach, describe, expect, it } from 'vitest';
import createDefault, {
  createDeployTargetAgent,
  DEPLOY_TARGET_QUESTION,
  UNSUPPORTED_REPLY,
} from '../src/index.js';
import { connectDeployClient, createWirePair, type Entrypoint } from './support/client.js';

const FORM = { elicitation: { form: {} } };
const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function connect(entrypoint: Entrypoint, options: Parameters<typeof connectDeployClient>[2]) {
  const wire = createWirePair();
  const agentConnection = createDeployTargetAgent().connect(wire.agentSide);
  const client = await connectDeployClient(entrypoint, wire.clientSide, options);
  cleanups.push(() => {
    client.connection.close();
    agentConnection.close();
  });
  return { ...client, wire };
}

describe('createDeployTargetAgent', () => {
  it('is also the default export and returns a fresh app each call', () => {
    expect(createDefault).toBe(createDeployTargetAgent);
    expect(createDeployTargetAgent()).not.toBe(createDeployTargetAgent());
  });
});

describe.each(['stable', 'unstable'] as const)(
  'deploy-target agent with a real %s SDK client',
  (entrypoint) => {
    it.each([
      ['choice_0', 'Selected: preview'],
      ['choice_1', 'Selected: production'],
    ])('replies to an accepted %s', async (token, reply) => {
      let question: unknown;
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answer: ({ params }) => {
          question = params;
          return { action: 'accept', content: { choice: token } };
        },
      });
      expect(client.initialized.agentInfo?.name).toBe('deploy-target');
      const response = await client.prompt();
      expect(response.stopReason).toBe('end_turn');
      expect(client.texts).toEqual([reply]);
      expect(question).toMatchObject({
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
      ['decline', 'The user declined to choose.'],
      ['cancel', 'The choice was cancelled.'],
    ] as const)('replies to %s', async (action, reply) => {
      const client = await connect(entrypoint, { clientCapabilities: FORM, answer: () => ({ action }) });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.texts).toEqual([reply]);
    });

    it('answers a client without form elicitation with a clear text', async () => {
      const client = await connect(entrypoint, { clientCapabilities: { elicitation: {} } });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.texts).toEqual([UNSUPPORTED_REPLY]);
      const methods = client.wire.toClient.flatMap((message) =>
        'method' in message ? [message.method] : [],
      );
      expect(methods).not.toContain('elicitation/create');
    });

    it('answers a client that advertised form but has no handler (-32601) with the same text', async () => {
      const client = await connect(entrypoint, { clientCapabilities: FORM });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.texts).toEqual([UNSUPPORTED_REPLY]);
    });

    it('ends a turn cancelled with session/cancel: $/cancel_request, the cancelled text, stopReason cancelled', async () => {
      let asked!: () => void;
      const questionShown = new Promise<void>((resolve) => {
        asked = resolve;
      });
      let calls = 0;
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answer: ({ signal }) => {
          calls += 1;
          if (calls > 1) return { action: 'decline' };
          return new Promise((resolve) => {
            asked();
            signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
          });
        },
      });
      const prompt = client.prompt();
      await questionShown;
      await client.cancel();
      expect((await prompt).stopReason).toBe('cancelled');
      expect(client.texts).toEqual(['The choice was cancelled.']);
      expect(
        client.wire.toClient.some((message) => 'method' in message && message.method === '$/cancel_request'),
      ).toBe(true);
      // The next turn of the same session is a normal one again.
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.texts).toEqual(['The choice was cancelled.', 'The user declined to choose.']);
    });
  },
);
