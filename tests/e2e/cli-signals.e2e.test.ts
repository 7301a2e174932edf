// Long-running commands stop gracefully: SIGINT exits 130 (servers close every connection at once), SIGTERM exits
// 143 (servers drain first: cli-drain.e2e.test.ts), and by then every agent process a server spawned is gone. Also
// `acpkit run TARGET` (stdio) including a TypeScript TARGET with no build step.
import { afterEach, describe, expect, it } from 'vitest';
import { connectTestClient, declineElicitation, processStream, runPromptTurn } from './support/acp-client.js';
import { INITIALIZE_WITH_FORMS, ndjsonPeer } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import { isAlive, reapAll, spawnCli, trackDescendantGroups, waitUntil } from './support/processes.js';
import { spawnMirrorPeer, startExpose, startServe } from './support/remote-servers.js';

const probeAgent = fixturePath('remote-probe-agent.js');
const signals = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;

afterEach(async () => {
  await reapAll();
});

describe('servers on SIGINT (Ctrl+C: no drain)', () => {
  const [signal, exitCode] = ['SIGINT', 130] as const;
  it(`acpremote expose exits ${exitCode} after reaping every connected agent process`, async () => {
    const server = await startExpose([process.execPath, probeAgent]);
    const { peer } = spawnMirrorPeer('acpremote mirror', server.url);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    const agentPids = trackDescendantGroups(server.process.pid);
    expect(agentPids.length).toBeGreaterThan(0);

    server.process.child.kill(signal);
    expect(await server.process.exited).toEqual({ code: exitCode, signal: null });
    expect(agentPids.filter((pid) => isAlive(pid))).toEqual([]);
    await server.process.waitForStderr(new RegExp(`Received ${signal}`));
  });

  it(`acpremote serve and acpkit serve exit ${exitCode}`, async () => {
    for (const cli of ['acpremote', 'acpkit'] as const) {
      const server = await startServe(`${probeAgent}:createProbeAgent`, [], { cli });
      server.process.child.kill(signal);
      expect(await server.process.exited).toEqual({ code: exitCode, signal: null });
    }
  });
});

describe.each(signals)('on %s', (signal, exitCode) => {
  it(`the mirrors exit ${exitCode} and close their remote connection`, async () => {
    const server = await startExpose([process.execPath, probeAgent]);
    for (const mirrorCli of ['acpremote mirror', 'acpkit run --addr'] as const) {
      const { mirror, peer } = spawnMirrorPeer(mirrorCli, server.url);
      expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
      const agentPids = trackDescendantGroups(server.process.pid);
      mirror.child.kill(signal);
      expect(await mirror.exited).toEqual({ code: exitCode, signal: null });
      await waitUntil(() => agentPids.every((pid) => !isAlive(pid)), 'the remote agent process is gone');
    }
  });

  it(`acpkit run TARGET exits ${exitCode}`, async () => {
    const run = spawnCli('acpkit', ['run', `${probeAgent}:createProbeAgent`], { collectStdout: false });
    const { stdin, stdout } = run.child;
    if (!stdin || !stdout) throw new Error('no stdio');
    const peer = ndjsonPeer(stdin, stdout);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    run.child.kill(signal);
    expect(await run.exited).toEqual({ code: exitCode, signal: null });
  });
});

describe('acpkit run TARGET (stdio)', () => {
  it('serves the agent over stdio with only JSON-RPC on stdout and exits 0 on stdin EOF', async () => {
    const run = spawnCli('acpkit', ['run', `${probeAgent}:createProbeAgent`], { collectStdout: false });
    const { stdin, stdout } = run.child;
    if (!stdin || !stdout) throw new Error('no stdio');
    const lines: string[] = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const peer = ndjsonPeer(stdin, stdout);
    expect(await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).toMatchObject({ id: 0, result: {} });
    expect(await peer.request('p', '_vendor/ping', { nonce: 'stdio', log: true })).toMatchObject({
      result: { pong: 'stdio' },
    });
    stdin.end();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    // Two responses and nothing else: the agent's console.log went to stderr.
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    await run.waitForStderr(/probe agent log line \(not JSON-RPC\)/);
  });

  it('loads a .ts TARGET without a build step', async () => {
    const run = spawnCli('acpkit', ['run', `${fixturePath('remote-typed-agent.ts')}:createTypedAgent`], {
      collectStdout: false,
    });
    const client = connectTestClient(processStream(run), declineElicitation);
    const turn = await runPromptTurn(client, 'hello');
    expect(turn).toMatchObject({ stopReason: 'end_turn', text: 'typed: hello' });
    run.child.stdin?.end();
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });
});
