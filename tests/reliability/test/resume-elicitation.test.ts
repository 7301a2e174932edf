// A question pending across a network drop: an SDK client that answers forms → the built mirror CLI → a fault proxy
// → `acpremote expose -- node examples/deploy-target`. The connection is cut while the agent waits for the answer;
// the answer, given after the reconnect or while the mirror is still reconnecting, reaches the agent.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';
import {
  ACPKIT_CLI,
  ACPREMOTE_CLI,
  DEPLOY_TARGET,
  killStartedProcesses,
  type RunningServer,
  spawnTracked,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const mirrors = {
  'acpkit run --addr': (url: string) => [ACPKIT_CLI, 'run', '--addr', url],
  'acpremote mirror': (url: string) => [ACPREMOTE_CLI, 'mirror', url],
} as const;

/** The form's option titled `title`, as the client's accepted answer. */
function accept(request: CreateElicitationRequest, title: string): CreateElicitationResponse {
  const schema = (request as { requestedSchema?: { properties?: Record<string, { oneOf?: unknown[] }> } })
    .requestedSchema;
  for (const [field, property] of Object.entries(schema?.properties ?? {})) {
    for (const option of property.oneOf ?? []) {
      const { title: optionTitle, const: value } = option as { title?: unknown; const?: unknown };
      if (optionTitle === title) return { action: 'accept', content: { [field]: String(value) } };
    }
  }
  throw new Error(`no option titled ${title}`);
}

/** An SDK client on the mirror's stdio whose answer to the form waits for `answer()`. */
function editorOn(mirror: ChildProcessWithoutNullStreams) {
  let asked: (request: CreateElicitationRequest) => void = () => {};
  const question = new Promise<CreateElicitationRequest>((resolve) => {
    asked = resolve;
  });
  let answer: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let text = '';
  const connection = client({ name: 'resume-editor' })
    .onRequest(methods.client.elicitation.create, async ({ params }) => {
      asked(params);
      await answered;
      return accept(params, 'Production');
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      const update = params.update as { sessionUpdate?: string; content?: { text?: string } };
      if (update.sessionUpdate === 'agent_message_chunk') text += update.content?.text ?? '';
    })
    .connect(
      ndJsonStream(
        Writable.toWeb(mirror.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(mirror.stdout) as ReadableStream<Uint8Array>,
      ),
    );
  return { agent: connection.agent, question, answer, text: () => text };
}

describe.each(Object.keys(mirrors) as Array<keyof typeof mirrors>)(
  'a pending elicitation across a drop (%s)',
  (mirrorName) => {
    let server: RunningServer;
    let proxy: FaultProxy;

    afterEach(async () => {
      await proxy?.close();
      await server?.stop();
      await killStartedProcesses();
    });

    async function startChain() {
      server = await startAcpremote(['expose', '--', process.execPath, DEPLOY_TARGET]);
      proxy = await startFaultProxy(server.port);
      const mirror = spawnTracked(
        [process.execPath, ...mirrors[mirrorName](`ws://127.0.0.1:${proxy.port}/acp/ws`)],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      ) as ChildProcessWithoutNullStreams;
      let stderr = '';
      mirror.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((resolve) => mirror.once('exit', (code) => resolve(code)));
      const editor = editorOn(mirror);
      await editor.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { elicitation: { form: {} } },
      });
      const { sessionId } = await editor.agent.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const turn = editor.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'deploy' }],
      });
      expect(await editor.question).toMatchObject({
        sessionId,
        mode: 'form',
        message: 'Choose a deployment target',
      });
      const stderrMatches = (pattern: RegExp) =>
        waitFor(
          () => pattern.test(stderr),
          30_000,
          () => `mirror stderr: ${stderr}`,
        );
      return { mirror, editor, turn, exited, stderrMatches, stderr: () => stderr };
    }

    it('delivers an answer given after the reconnect', async () => {
      const { mirror, editor, turn, exited, stderrMatches } = await startChain();
      proxy.cutAll();
      await stderrMatches(/connection resumed attempts=\d+ downtimeMs=\d+ replayedFrames=\d+/);
      editor.answer();
      expect(await turn).toEqual({ stopReason: 'end_turn' });
      expect(editor.text()).toBe('Selected: production');
      expect(server.stderr()).toMatch(
        /connection interrupted; session kept for resume connection=1 code=1006/,
      );
      expect(server.stderr()).toMatch(/connection resumed connection=1 /);
      mirror.stdin.end();
      expect(await exited).toBe(0);
    });

    it('delivers an answer given while the mirror is still reconnecting', async () => {
      const { mirror, editor, turn, exited, stderrMatches } = await startChain();
      proxy.refuseNew(true);
      proxy.cutAll();
      await stderrMatches(/connection interrupted; resuming code=1006 windowMs=60000/);
      const attempts = proxy.accepted;
      editor.answer();
      // One more refused attempt after the answer: the mirror has read it into its replay buffer by then.
      await proxy.acceptedReached(attempts + 1);
      proxy.refuseNew(false);
      expect(await turn).toEqual({ stopReason: 'end_turn' });
      expect(editor.text()).toBe('Selected: production');
      await stderrMatches(/connection resumed attempts=([2-9]|\d\d+) /);
      mirror.stdin.end();
      expect(await exited).toBe(0);
    });
  },
);
