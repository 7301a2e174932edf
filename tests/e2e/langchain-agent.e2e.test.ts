// docs/langchain.md with the built CLIs and real processes: the LangChain example agent (`@acpkit/langchain`, LangChain's
// fakeModel) in `acpkit client --yes` over stdio, driven by the plain SDK client over stdio (permission, plan,
// session/list and session/load replay, cancel of a pending permission request with the next turn working), and
// served by `acpremote serve` behind `acpkit run --addr`.
import {
  methods,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type SessionUpdate,
  client as sdkClient,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { processStream } from './support/acp-client.js';
import { cliPaths, langchainAgent } from './support/paths.js';
import { reapAll, spawnCli, spawnProcess, withoutSlowStartNotice } from './support/processes.js';
import { startServe } from './support/remote-servers.js';

afterEach(async () => {
  await reapAll();
});

/** What `acpkit client --yes` prints for the release, from the prompt on. */
const CONVERSATION = [
  '> Release checkout-service',
  'Planning the release.',
  '⚙ write_todos (think) … pending',
  '… write_todos in_progress',
  '✓ write_todos completed',
  'Plan:',
  '  [~] Deploy to staging',
  '  [ ] Report the result',
  'Deploying to staging first.',
  '⚙ deploy … pending',
  '? langchain-release-agent 0.0.0 asks permission: deploy',
  '  Answered automatically (--yes or no terminal): Allow once [allow_once]',
  '… deploy in_progress',
  '✓ deploy completed',
  'Deployed checkout-service 1.4.2 to staging with 2 replicas. All done.',
].join('\n');

async function release(agent: readonly string[]) {
  const client = spawnCli('acpkit', [
    'client',
    '--yes',
    '--prompt',
    'Release checkout-service',
    '--',
    ...agent,
  ]);
  client.child.stdin?.end();
  const exit = await client.closed;
  return { ...exit, stdout: client.stdout(), stderr: client.stderr() };
}

describe('the LangChain example agent', () => {
  it('in acpkit client over stdio: plan, permission, deploy, report', async () => {
    const result = await release([process.execPath, langchainAgent.directory]);
    expect(result.stdout).toContain('Connected to langchain-release-agent 0.0.0.\n');
    expect(result.stdout).toContain(CONVERSATION);
    expect(withoutSlowStartNotice(result.stderr)).toBe('');
    expect(result.code).toBe(0);
  });

  it('served by acpremote serve and mirrored by acpkit run --addr: the same conversation', async () => {
    const server = await startServe(langchainAgent.module);
    const result = await release([process.execPath, cliPaths.acpkit, 'run', '--addr', server.url]);
    expect(result.stdout).toContain(CONVERSATION);
    expect(result.code).toBe(0);
  });

  it('with the SDK client over stdio: a turn, session/list, session/load replay, a cancelled permission request, the next turn', async () => {
    const agentProcess = spawnProcess(process.execPath, [langchainAgent.directory], { collectStdout: false });
    const updates: SessionUpdate[] = [];
    let answer: 'allow' | 'hang' = 'allow';
    let permissionAsked: (() => void) | undefined;
    await sdkClient({ name: 'e2e-sdk-client' })
      .onNotification(methods.client.session.update, ({ params }) => {
        updates.push(params.update);
      })
      .onRequest(
        methods.client.session.requestPermission,
        ({ params }: { params: RequestPermissionRequest }) => {
          if (answer === 'allow')
            return { outcome: { outcome: 'selected', optionId: params.options[0]?.optionId ?? '' } };
          permissionAsked?.();
          return new Promise(() => undefined);
        },
      )
      .connectWith(processStream(agentProcess), async (agent) => {
        const init = await agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({
          list: {},
          resume: {},
          close: {},
          delete: {},
        });
        const { sessionId } = await agent.request(methods.agent.session.new, {
          cwd: '/work/app',
          mcpServers: [],
        });
        const first = await agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Release it' }],
        });
        expect(first.stopReason).toBe('end_turn');
        expect(updates.some((update) => update.sessionUpdate === 'plan')).toBe(true);
        const listed = await agent.request(methods.agent.session.list, { cwd: '/work/app' });
        expect(listed.sessions).toEqual([
          expect.objectContaining({ sessionId, cwd: '/work/app', title: 'Release it' }),
        ]);
        updates.length = 0;
        await agent.request(methods.agent.session.load, { sessionId, cwd: '/work/app', mcpServers: [] });
        expect(updates[0]).toMatchObject({
          sessionUpdate: 'user_message_chunk',
          content: { text: 'Release it' },
        });
        expect(updates.at(-1)).toMatchObject({ sessionUpdate: 'agent_message_chunk' });
        answer = 'hang';
        const asked = new Promise<void>((resolve) => {
          permissionAsked = resolve;
        });
        const cancelled = agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Again' }],
        });
        await asked;
        await agent.notify(methods.agent.session.cancel, { sessionId });
        expect((await cancelled).stopReason).toBe('cancelled');
        answer = 'allow';
        const next = await agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Once more' }],
        });
        expect(next.stopReason).toBe('end_turn');
      });
    agentProcess.child.stdin?.end();
    expect((await agentProcess.closed).code).toBe(0);
  });
});
