// One session with the choice agent (fixtures/choice-agent.mjs) through a stdio mirror: initialize (which names the
// upstream that answered), a prompt whose turn waits on an elicitation, and the answer.
import { expect } from 'vitest';
import {
  fixturePath,
  type JsonRpcMessage,
  type RunningServer,
  type spawnStdioPeer,
  startAcpremote,
} from './processes.js';

type Mirror = ReturnType<typeof spawnStdioPeer>;

/**
 * Starts one `acpremote expose` of the choice agent per name; each agent reports its name in `initialize`.
 * `serverOptions` (e.g. `--metrics`) go before the agent's command line.
 */
export async function startChoiceUpstreams(
  names: readonly string[],
  serverOptions: readonly string[] = [],
): Promise<Map<string, RunningServer>> {
  const upstreams = new Map<string, RunningServer>();
  for (const name of names) {
    upstreams.set(
      name,
      await startAcpremote([
        'expose',
        '--env',
        `AGENT_NAME=${name}`,
        ...serverOptions,
        '--',
        process.execPath,
        fixturePath('choice-agent.mjs'),
      ]),
    );
  }
  return upstreams;
}

/** Initializes with form elicitation and returns the agent's name (which upstream answered). */
export async function initializeChoiceSession(
  mirror: Mirror,
  diagnostics: () => string = () => '',
): Promise<string> {
  const response = await mirror.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'reliability-suite', version: '0.0.0' },
  });
  expect(response.error, `${mirror.stderr()}\n${diagnostics()}`).toBeUndefined();
  return (response.result as { agentInfo: { name: string } }).agentInfo.name;
}

/** A prompt turn waiting on its form: `answer(title)` picks the option and resolves with the agent's reply. */
export interface PendingChoiceTurn {
  readonly elicitation: JsonRpcMessage;
  /** The `session/prompt` response (or error), whenever it comes. */
  readonly prompt: Promise<JsonRpcMessage>;
  answer(title: 'Preview' | 'Production'): Promise<string>;
}

/** Opens a session and sends a prompt; resolves once the agent's `elicitation/create` reached the client. */
export async function startChoiceTurn(mirror: Mirror): Promise<PendingChoiceTurn> {
  const created = await mirror.request('session/new', { cwd: '/', mcpServers: [] });
  const { sessionId } = created.result as { sessionId: string };
  const prompt = mirror.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'deploy' }] });
  const elicitation = await mirror.next((message) => message.method === 'elicitation/create');
  return {
    elicitation,
    prompt,
    async answer(title) {
      const schema = (
        elicitation.params as {
          requestedSchema: { properties: Record<string, { oneOf: { const: string; title: string }[] }> };
        }
      ).requestedSchema;
      const option = Object.values(schema.properties)[0]!.oneOf.find(
        (candidate) => candidate.title === title,
      )!;
      mirror.write({ id: elicitation.id!, result: { action: 'accept', content: { choice: option.const } } });
      const update = await mirror.next((message) => message.method === 'session/update');
      expect((await prompt).result).toEqual({ stopReason: 'end_turn' });
      return (update.params as { update: { content: { text: string } } }).update.content.text;
    },
  };
}
