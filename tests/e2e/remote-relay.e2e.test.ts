// Frames through the real chain: raw JSON-RPC client → mirror CLI (stdio) → WebSocket → `acpremote expose` →
// probe agent (stdio child). Ids (0 included), `$/cancel_request`, `_vendor/*` and the unstable-method policy.
import { RelayErrorCode } from '@acpkit/remote';
import { afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS, type JsonRpcPeer, webSocketPeer } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import {
  descendantsOf,
  isAlive,
  killGroup,
  reapAll,
  trackDescendantGroups,
  waitUntil,
} from './support/processes.js';
import { type MirrorCli, spawnMirrorPeer, startExpose } from './support/remote-servers.js';
import { closeAllWebSockets, closeOf, openAcceptedWebSocket } from './support/websocket.js';

const probeAgent = [process.execPath, fixturePath('remote-probe-agent.js')];
const mirrors: MirrorCli[] = ['acpkit run --addr', 'acpremote mirror'];

afterEach(async () => {
  closeAllWebSockets();
  await reapAll();
});

async function initializeAndOpenSession(peer: JsonRpcPeer): Promise<string> {
  const initialized = await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS);
  expect(initialized.error).toBeUndefined();
  const session = await peer.request(1, 'session/new', { cwd: process.cwd(), mcpServers: [] });
  return (session.result as { sessionId: string }).sessionId;
}

describe.each(mirrors)('through %s', (mirrorCli) => {
  it('relays id 0, a _vendor/ping request, a _vendor notification and $/cancel_request unchanged', async () => {
    const server = await startExpose(probeAgent);
    const { peer } = spawnMirrorPeer(mirrorCli, server.url, ['--unstable-protocol']);

    const initialized = await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS);
    expect(initialized).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } });

    const ping = await peer.request('ping-7', '_vendor/ping', {
      nonce: 'n-7',
      extra: { nested: [1, { deep: true }] },
      log: true,
    });
    expect(ping).toEqual({
      jsonrpc: '2.0',
      id: 'ping-7',
      result: { pong: 'n-7', requestId: 'ping-7', unknownFieldEcho: { nested: [1, { deep: true }] } },
    });
    // The agent's non-JSON stdout line was logged by the server, not relayed to the editor.
    await server.process.waitForStderr(/agent stdout line is not a JSON-RPC object; not forwarded/);

    peer.send({ jsonrpc: '2.0', method: '_vendor/notice', params: { hello: 'agent' } });
    const session = await peer.request(1, 'session/new', { cwd: process.cwd(), mcpServers: [] });
    const sessionId = (session.result as { sessionId: string }).sessionId;

    peer.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: 'wait-for-cancel' }] },
    });
    // The prompt is in flight once the agent has recorded it; only then is the cancel meaningful.
    await waitForAgentToRecord(peer, 'session/prompt');
    peer.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 2 } });
    const cancelled = await peer.next((message) => message.id === 2);
    expect(cancelled.error?.code).toBe(-32800);

    const history = await peer.request('history', '_vendor/history');
    const methods = (history.result as { methods: string[] }).methods;
    // The SDK agent dispatches notifications without awaiting them, so only the requests have a fixed order there.
    expect(methods.filter((method) => method !== '_vendor/notice')).toEqual([
      'initialize',
      '_vendor/ping',
      'session/new',
      'session/prompt',
    ]);
    expect(methods).toContain('_vendor/notice');
  });

  it('answers session/fork with -32601 itself without --unstable-protocol, so it never reaches the agent', async () => {
    const server = await startExpose(probeAgent);
    const { peer } = spawnMirrorPeer(mirrorCli, server.url);
    const sessionId = await initializeAndOpenSession(peer);

    const fork = await peer.request(2, 'session/fork', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(fork.error?.code).toBe(-32601);
    const history = await peer.request(3, '_vendor/history');
    expect((history.result as { methods: string[] }).methods).not.toContain('session/fork');
  });

  it('relays session/fork to the agent with --unstable-protocol', async () => {
    const server = await startExpose(probeAgent);
    const { peer } = spawnMirrorPeer(mirrorCli, server.url, ['--unstable-protocol']);
    const sessionId = await initializeAndOpenSession(peer);

    const fork = await peer.request(2, 'session/fork', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(fork.result).toEqual({ sessionId: `forked-${sessionId}` });
    const history = await peer.request(3, '_vendor/history');
    expect((history.result as { methods: string[] }).methods).toContain('session/fork');
  });

  it('exits 0 on stdin EOF and the remote agent process is reaped', async () => {
    const server = await startExpose(probeAgent);
    const { mirror, peer } = spawnMirrorPeer(mirrorCli, server.url);
    await initializeAndOpenSession(peer);
    const agentPids = trackDescendantGroups(server.process.pid);
    expect(agentPids.length).toBeGreaterThan(0);

    mirror.child.stdin?.end();
    expect(await mirror.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => agentPids.every((pid) => !isAlive(pid)), 'the agent process is gone');
    expect(isAlive(server.process.pid)).toBe(true);
  });

  it('fails the in-flight request and exits 1 when the remote is killed mid-request', async () => {
    const server = await startExpose(probeAgent);
    // Without resume and without carrying sessions the loss is final at once (with resume, the mirror would first
    // try to resume for the window: tests/reliability/test/resume-refusals.test.ts shows that ends the same way;
    // carrying the session to a new connection for --reconnect-timeout: carried-sessions.e2e.test.ts).
    const { mirror, peer } = spawnMirrorPeer(mirrorCli, server.url, ['--no-resume', '--no-carry-sessions']);
    const sessionId = await initializeAndOpenSession(peer);
    trackDescendantGroups(server.process.pid);

    peer.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: 'hang' }] },
    });
    await waitForAgentToRecord(peer, 'session/prompt');
    killGroup(server.process.pid, 'SIGKILL');

    const failed = await peer.next((message) => message.id === 9);
    expect(failed.error?.code).toBe(RelayErrorCode.TransportLost);
    expect(failed.error?.message).toMatch(/transport|connection/i);
    expect(await mirror.exited).toEqual({ code: 1, signal: null });
  });
});

async function waitForAgentToRecord(peer: JsonRpcPeer, method: string): Promise<void> {
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const history = await peer.request(`history-${attempt}`, '_vendor/history');
    if ((history.result as { methods: string[] }).methods.includes(method)) return;
  }
}

describe('acpremote expose teardown', () => {
  it('removes a child (and its group) that ignores stdin EOF and SIGTERM once the socket closes', async () => {
    const server = await startExpose(
      [process.execPath, fixturePath('remote-stubborn-agent.js')],
      ['--terminate-timeout', '0.3'],
    );
    const socket = await openAcceptedWebSocket(server.url);
    const peer = webSocketPeer(socket);
    const answer = await peer.request(1, '_fixture/pids');
    const { pid, grandchildPid } = answer.result as { pid: number; grandchildPid: number };
    trackDescendantGroups(server.process.pid);
    expect(descendantsOf(server.process.pid)).toEqual(expect.arrayContaining([pid, grandchildPid]));

    const closed = closeOf(socket);
    socket.close(1000, 'done');
    await closed;
    await waitUntil(
      () => !isAlive(pid) && !isAlive(grandchildPid),
      'the stubborn agent and its grandchild are gone',
    );
    expect(isAlive(server.process.pid)).toBe(true);
  });
});
