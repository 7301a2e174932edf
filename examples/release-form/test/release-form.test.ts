import { afterEach, describe, expect, it } from 'vitest';
import createDefault, {
  CURRENT_VERSION,
  createReleaseFormAgent,
  PACKAGES,
  UNSUPPORTED_REPLY,
} from '../src/index.js';
import {
  acceptDefaults,
  connectReleaseClient,
  createWirePair,
  type ElicitationAnswer,
  type Entrypoint,
} from './support/client.js';

const FORM = { elicitation: { form: {} } };
const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function connect(entrypoint: Entrypoint, options: Parameters<typeof connectReleaseClient>[2]) {
  const wire = createWirePair();
  const agentConnection = createReleaseFormAgent().connect(wire.agentSide);
  const client = await connectReleaseClient(entrypoint, wire.clientSide, options);
  cleanups.push(() => {
    client.connection.close();
    agentConnection.close();
  });
  return client;
}

const accept =
  (content: Record<string, string | number | boolean | string[]>): ElicitationAnswer =>
  () => ({ action: 'accept', content });

const releaseAnswer = accept({
  version: '2.0.0',
  notes: 'Typed forms.',
  date: '2026-12-01',
  channel: 'choice_1',
  rollout: 50,
  notify: false,
});

describe('createReleaseFormAgent', () => {
  it('is also the default export and returns a fresh app each call', () => {
    expect(createDefault).toBe(createReleaseFormAgent);
    expect(createReleaseFormAgent()).not.toBe(createReleaseFormAgent());
  });
});

describe.each(['stable', 'unstable'] as const)(
  'release-form agent with a real %s SDK client',
  (entrypoint) => {
    it('asks the form, the packages and the confirmation, and publishes the object values picked', async () => {
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answers: [releaseAnswer, accept({ value: ['choice_2', 'choice_0'] }), accept({ value: true })],
      });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.lines()).toEqual([
        `Release plan: ${JSON.stringify({
          version: '2.0.0',
          notes: 'Typed forms.',
          date: '2026-12-01',
          channel: { name: 'preview', npmTag: 'next' },
          rollout: 50,
          notify: false,
          packages: [PACKAGES[2].value, PACKAGES[0].value],
        })}`,
        'Publishing 2.0.0: @acpkit/cli, @acpkit/elicitation.',
      ]);
      const [form, packages, confirmation] = client.asked;
      expect(form).toMatchObject({
        sessionId: client.sessionId,
        mode: 'form',
        message: 'Plan the release',
        requestedSchema: {
          title: 'Release details',
          required: ['channel'],
          properties: {
            version: { type: 'string', title: 'Version', pattern: '^\\d+\\.\\d+\\.\\d+$', default: '1.5.0' },
            notes: { type: 'string', minLength: 3, maxLength: 200 },
            date: { type: 'string', format: 'date' },
            channel: { type: 'string', default: 'choice_0' },
            rollout: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
            notify: { type: 'boolean', default: true },
          },
        },
      });
      expect(packages).toMatchObject({
        message: 'Which packages should be published?',
        requestedSchema: {
          required: ['value'],
          properties: { value: { type: 'array', title: 'Packages', minItems: 1, default: ['choice_0'] } },
        },
      });
      expect(confirmation).toMatchObject({
        message: 'Publish 2.0.0 of 2 package(s) under the npm tag next to 50% of users?',
        requestedSchema: { properties: { value: { type: 'boolean', title: 'Publish now', default: false } } },
      });
      expect(JSON.stringify(client.asked)).not.toContain('packages/remote');
    });

    it('accepts the defaults a non-interactive client sends, and does not publish without confirmation', async () => {
      const client = await connect(entrypoint, { clientCapabilities: FORM, answers: [acceptDefaults] });
      await client.prompt();
      expect(client.lines()).toEqual([
        `Release plan: ${JSON.stringify({
          version: '1.5.0',
          channel: { name: 'stable', npmTag: 'latest' },
          rollout: 10,
          notify: true,
          packages: [PACKAGES[0].value],
        })}`,
        'Not published: the release was not confirmed.',
      ]);
    });

    it('asks the form again with what was wrong while its answers fail the schema', async () => {
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answers: [
          accept({ version: '1.3.9', channel: 'choice_0' }),
          accept({ version: '1.6.0', channel: 'choice_0', rollout: 0 }),
          accept({ version: '1.6.0', channel: 'choice_0' }),
          accept({ value: ['choice_1'] }),
          accept({ value: false }),
        ],
      });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.lines().slice(0, 2)).toEqual([
        `Those answers were not accepted (version: Must come after ${CURRENT_VERSION}). Please try again.`,
        'Those answers were not accepted (rollout: Too small: expected number to be >=1). Please try again.',
      ]);
      expect(client.lines().at(-1)).toBe('Not published: the release was not confirmed.');
      expect(client.asked.map((request) => request.message)).toEqual([
        'Plan the release',
        'Plan the release',
        'Plan the release',
        'Which packages should be published?',
        'Publish 1.6.0 of 1 package(s) under the npm tag latest to 10% of users?',
      ]);
    });

    it('gives up after three invalid answers', async () => {
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answers: [accept({ version: 'latest', channel: 'choice_9' })],
      });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.asked).toHaveLength(3);
      expect(client.lines().at(-1)).toBe(
        'Release not planned: the answers did not pass after 3 attempts (version: Use MAJOR.MINOR.PATCH, such as ' +
          '1.5.0; channel: Not one of the offered choices).',
      );
    });

    it.each([
      [[() => ({ action: 'decline' as const })], 'Release not planned: the release form was declined.'],
      [
        [releaseAnswer, () => ({ action: 'cancel' as const })],
        'Release not planned: the package choice was cancelled.',
      ],
      [
        [releaseAnswer, accept({ value: ['choice_0'] }), () => ({ action: 'decline' as const })],
        'Release not planned: the confirmation was declined.',
      ],
    ])('stops when a step is not answered (%#)', async (answers, reply) => {
      const client = await connect(entrypoint, { clientCapabilities: FORM, answers });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.lines().at(-1)).toBe(reply);
    });

    it('answers a client without form elicitation with a clear text, sending no form', async () => {
      const client = await connect(entrypoint, {
        clientCapabilities: { elicitation: { url: {} } },
        answers: [],
      });
      expect((await client.prompt()).stopReason).toBe('end_turn');
      expect(client.lines()).toEqual([UNSUPPORTED_REPLY]);
      expect(client.asked).toHaveLength(0);
    });

    it('ends a turn cancelled with session/cancel with stopReason cancelled', async () => {
      let shown!: () => void;
      const formShown = new Promise<void>((resolve) => {
        shown = resolve;
      });
      const client = await connect(entrypoint, {
        clientCapabilities: FORM,
        answers: [
          ({ signal }) =>
            new Promise((resolve) => {
              shown();
              signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
            }),
        ],
      });
      const prompt = client.prompt();
      await formShown;
      await client.cancel();
      expect((await prompt).stopReason).toBe('cancelled');
      expect(client.lines()).toEqual(['Release not planned: the release form was cancelled.']);
    });
  },
);
