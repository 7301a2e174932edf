// The main scenario with real processes: an SDK client that advertises form elicitation → a mirror CLI
// (`acpkit run --addr … --unstable-protocol` or `acpremote mirror … --unstable-protocol`) → WebSocket → a server
// CLI (`acpremote expose -- node examples/deploy-target`, `acpremote serve` / `acpkit serve` of the in-process
// module) → the deploy-target agent. Accepted, declined and cancelled answers reach the agent and its reply comes
// back.
import { RemoteProtocol } from '@acpkit/remote';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptChoiceTitled,
  cancelElicitation,
  connectTestClient,
  declineElicitation,
  type ElicitationAnswerer,
  processStream,
  runPromptTurn,
} from './support/acp-client.js';
import { runMirrorTurn } from './support/mirror-turn.js';
import { deployTarget } from './support/paths.js';
import { isAlive, reapAll, trackDescendantGroups, waitUntil } from './support/processes.js';
import {
  type MirrorCli,
  type RunningServer,
  spawnMirror,
  startExpose,
  startServe,
} from './support/remote-servers.js';

afterEach(async () => {
  await reapAll();
});

const servers: Record<string, () => Promise<RunningServer>> = {
  'acpremote expose -- node examples/deploy-target': () =>
    startExpose([process.execPath, deployTarget.directory]),
  'acpremote serve examples/deploy-target/dist/index.js': () => startServe(deployTarget.module),
  'acpkit serve examples/deploy-target/dist/index.js:createDeployTargetAgent': () =>
    startServe(`${deployTarget.module}:createDeployTargetAgent`, [], { cli: 'acpkit' }),
};

// expose ← acpremote mirror is covered by the mirror-options tests below.
const chains: Array<[server: string, mirror: MirrorCli]> = [
  ['acpremote expose -- node examples/deploy-target', 'acpkit run --addr'],
  ['acpremote serve examples/deploy-target/dist/index.js', 'acpremote mirror'],
  ['acpkit serve examples/deploy-target/dist/index.js:createDeployTargetAgent', 'acpkit run --addr'],
];

const answers: Array<[name: string, answerer: ElicitationAnswerer, reply: string]> = [
  ['accepted', acceptChoiceTitled('Production'), 'Selected: production'],
  ['declined', declineElicitation, 'The user declined to choose.'],
  ['cancelled', cancelElicitation, 'The choice was cancelled.'],
];

describe.each(chains)('%s ← %s --unstable-protocol', (serverName, mirrorCli) => {
  it.each(answers)(
    'delivers the %s answer to the agent and its reply to the editor',
    async (_answer, answerer, reply) => {
      const server = await (servers[serverName] as () => Promise<RunningServer>)();
      const run = await runMirrorTurn(mirrorCli, server.url, answerer, {
        flags: ['--unstable-protocol'],
        prompt: 'deploy please',
      });

      expect(run.turn).toMatchObject({ stopReason: 'end_turn', text: reply });
      expect(run.elicitations).toHaveLength(1);
      expect(run.elicitations[0]).toMatchObject({ mode: 'form', message: 'Choose a deployment target' });
      expect(run.exit).toEqual({ code: 0, signal: null });
    },
  );
});

describe('acpremote expose -- node examples/deploy-target ← acpremote mirror', () => {
  it('adds transport latency under _meta with --latency-meta and keeps elicitation with client-passthrough', async () => {
    const server = await startExpose([process.execPath, deployTarget.directory]);
    const mirror = spawnMirror('acpremote mirror', server.url, [
      '--latency-meta',
      '--host-ownership',
      'client-passthrough',
    ]);
    const client = connectTestClient(processStream(mirror), acceptChoiceTitled('Preview'));
    const turn = await runPromptTurn(client, 'deploy');
    expect(turn.text).toBe('Selected: preview');
    const latency = client.updates.at(-1)?._meta?.[RemoteProtocol.transportLatencyMetaKey] as Record<
      string,
      unknown
    >;
    expect(latency).toMatchObject({ updateCount: 1 });
    expect(typeof latency.elapsedMs).toBe('number');
  });

  it('reaps the exposed agent process when the editor disconnects', async () => {
    const server = await startExpose([process.execPath, deployTarget.directory]);
    const mirror = spawnMirror('acpkit run --addr', server.url, ['--unstable-protocol']);
    const client = connectTestClient(processStream(mirror), declineElicitation);
    await runPromptTurn(client, 'deploy');
    const agentPids = trackDescendantGroups(server.process.pid);
    expect(agentPids.length).toBeGreaterThan(0);
    mirror.child.stdin?.end();
    expect((await mirror.exited).code).toBe(0);
    await waitUntil(() => agentPids.every((pid) => !isAlive(pid)), 'the deploy-target process is gone');
  });
});
