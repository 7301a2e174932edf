// A remote "agent" that does not speak ACP (it prints text to stdout and never answers), and mirrors that are stopped
// while a request is in flight (issue 19, item 5). The server answers `initialize` itself with an error that names
// the problem, a few seconds after the text, as the local test client does (acpkit client's view of it:
// client-scripted.e2e.test.ts); it never keeps such a session for a resume; and a mirror that is stopped closes its
// connection with a close frame, so the server does not keep its session either.
import { afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import { isAlive, reapAll, trackDescendantGroups, waitUntil } from './support/processes.js';
import { type MirrorCli, spawnMirrorPeer, startExpose } from './support/remote-servers.js';

const noiseOnlyAgent = [process.execPath, fixturePath('client-diagnostics-agent.mjs'), 'noise-only'];
const probeAgent = [process.execPath, fixturePath('remote-probe-agent.js')];
const mirrors: MirrorCli[] = ['acpkit run --addr', 'acpremote mirror'];

afterEach(async () => {
  await reapAll();
});

/** The server's verdict on a connection that ended: a clean end, or a session kept for a resume. */
const SESSION_END = /connection closed|session kept for resume/;

describe.each(mirrors)('%s to an agent that prints text instead of speaking ACP', (mirrorCli) => {
  it('gets an initialize error naming the problem, and the server ends the session and reaps the agent', async () => {
    const server = await startExpose(noiseOnlyAgent);
    const { mirror, peer } = spawnMirrorPeer(mirrorCli, server.url);

    const answer = await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS);
    expect(answer.error?.message).toMatch(/not speaking ACP/);
    expect(answer.error?.message).toContain('"Agent starting up, please wait…"');
    const agents = trackDescendantGroups(server.process.pid);

    mirror.child.stdin?.end();
    expect((await server.process.waitForStderr(SESSION_END))[0]).toBe('connection closed');
    await waitUntil(() => agents.every((pid) => !isAlive(pid)), 'the agent is reaped');
    expect(server.process.stderr()).toMatch(/agent is not speaking ACP/);
  });
});

describe.each(mirrors)('%s stopped with a request in flight', (mirrorCli) => {
  it('closes its connection with a close frame even when a second SIGTERM cuts its wait short', async () => {
    const server = await startExpose(probeAgent);
    const { mirror, peer } = spawnMirrorPeer(mirrorCli, server.url);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    const session = await peer.request(1, 'session/new', { cwd: process.cwd(), mcpServers: [] });
    const { sessionId } = session.result as { sessionId: string };
    // A turn the agent never ends by itself: the mirror has a request in flight when it is told to stop.
    peer.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: 'hang' }] },
    });
    const history = await peer.request(3, '_vendor/history');
    expect((history.result as { methods: string[] }).methods).toContain('session/prompt');

    // What a client that gives up on its agent does (AgentProcess.abandon): SIGTERM, then SIGTERM again.
    mirror.child.kill('SIGTERM');
    await mirror.waitForStderr(/closing the remote connection once in-flight requests are answered/);
    mirror.child.kill('SIGTERM');
    await mirror.exited;
    expect((await server.process.waitForStderr(SESSION_END))[0]).toBe('connection closed');
  });
});
