import { existsSync } from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ACPREMOTE_CLI,
  childPids,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

/** The promise's settle time in ms, measured from now. */
async function settleTime<Value>(promise: Promise<Value>): Promise<{ value: Value; milliseconds: number }> {
  const started = performance.now();
  const value = await promise;
  return { value, milliseconds: performance.now() - started };
}

/**
 * A request held at a fault must settle because the fault was seen (EOF, a reset socket), not because a later timer
 * fired: the next one is the 25 s ping interval's missed pong. Under half of it, so a loaded machine (it took 1.6 s at
 * load 16) cannot fail the test, while a fault noticed only by the heartbeat still does.
 */
const SETTLED_ON_THE_FAULT_MS = 10_000;

const initializeParams = (elicitation = false) => ({
  protocolVersion: 1,
  clientCapabilities: elicitation ? { elicitation: { form: {} } } : {},
  clientInfo: { name: 'reliability-suite', version: '0.0.0' },
});

/**
 * The mirror without resume: these tests prove how a connection that is lost for good ends (with resume, a drop is
 * reconnected first; resume-*.test.ts cover that and how a resume that fails ends, which is the same).
 */
function startMirror(url: string) {
  return spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', url, '--no-resume']);
}

/** A TCP relay between the mirror and the server whose connections a test can drop (RST) at will. */
async function startDroppableLink(targetPort: number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((downstream) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    downstream.pipe(upstream).pipe(downstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    /** Drops every link connection as a network failure would: RST both ways, no close handshake. */
    drop() {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('faults between the mirror, the server and the agent', () => {
  const servers: RunningServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('settles a pending request with an error on the fault, not on a heartbeat, when the agent is killed with SIGKILL', async () => {
    const server = await startAcpremote(['expose', '--', process.execPath, fixturePath('hold-agent.mjs')]);
    servers.push(server);
    const mirror = startMirror(server.url);
    expect((await mirror.request('initialize', initializeParams())).result).toBeDefined();
    const { result } = await mirror.request('_test/pid', {});
    const agentPid = (result as { pid: number }).pid;
    const held = mirror.request('_test/hold', {});
    // One pipe, in order: once this echo is answered the held request has reached the agent.
    await mirror.request('_test/echo', { after: 'hold' });

    process.kill(agentPid, 'SIGKILL');
    const { value: response, milliseconds } = await settleTime(held);

    expect(response.error?.code).toBeTypeOf('number');
    expect(milliseconds).toBeLessThan(SETTLED_ON_THE_FAULT_MS);
    expect(await mirror.exited).toBe(1);
    expect(mirror.nonJsonRpcLines).toEqual([]);
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      5_000,
      () => 'agent not reaped',
    );
    expect(server.child.exitCode).toBeNull();
    expect(server.stdout()).toBe('');
  });

  it('settles the pending prompt on the fault, not on a heartbeat, when the network between mirror and server drops mid-elicitation', async () => {
    const server = await startAcpremote(['expose', '--', process.execPath, fixturePath('choice-agent.mjs')]);
    servers.push(server);
    const link = await startDroppableLink(server.port);
    cleanups.push(link.close);
    const mirror = startMirror(`ws://127.0.0.1:${link.port}/acp/ws`);
    expect((await mirror.request('initialize', initializeParams(true))).result).toBeDefined();
    const created = await mirror.request('session/new', { cwd: '/', mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    const prompt = mirror.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'deploy' }],
    });
    const elicitation = await mirror.next((message) => message.method === 'elicitation/create');
    expect(elicitation.params).toMatchObject({ sessionId, mode: 'form' });

    link.drop();
    const { value: response, milliseconds } = await settleTime(prompt);

    expect(response.error?.code).toBeTypeOf('number');
    expect(milliseconds).toBeLessThan(SETTLED_ON_THE_FAULT_MS);
    expect(await mirror.exited).toBe(1);
    expect(mirror.nonJsonRpcLines).toEqual([]);
    // The server side lost its socket too: the agent with the unanswered question is stopped and reaped.
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      10_000,
      () => 'agent not reaped',
    );
    expect(server.child.exitCode).toBeNull();
  });

  it('settles a pending request on the fault, not on a heartbeat, when the server is killed, and a restarted server serves again', async () => {
    const agent = ['--', process.execPath, fixturePath('hold-agent.mjs')];
    const first = await startAcpremote(['expose', ...agent]);
    servers.push(first);
    const mirror = startMirror(first.url);
    expect((await mirror.request('initialize', initializeParams())).result).toBeDefined();
    const { result } = await mirror.request('_test/pid', {});
    const agentPid = (result as { pid: number }).pid;
    const held = mirror.request('_test/hold', {});
    await mirror.request('_test/echo', { after: 'hold' });

    first.child.kill('SIGKILL');
    const { value: response, milliseconds } = await settleTime(held);

    expect(response.error?.code).toBeTypeOf('number');
    expect(milliseconds).toBeLessThan(SETTLED_ON_THE_FAULT_MS);
    expect(await mirror.exited).toBe(1);
    expect(mirror.nonJsonRpcLines).toEqual([]);
    // Even a SIGKILLed server leaves no orphan: the agent sees stdin EOF and exits.
    await waitFor(
      () => !existsSync(`/proc/${agentPid}`),
      10_000,
      () => `agent ${agentPid} still running`,
    );

    const restarted = await startAcpremote(['expose', '--port', String(first.port), ...agent]);
    servers.push(restarted);
    const again = startMirror(restarted.url);
    expect((await again.request('initialize', initializeParams())).result).toBeDefined();
    expect((await again.request('_test/echo', { again: true })).result).toEqual({ again: true });
    again.child.stdin.end();
    expect(await again.exited).toBe(0);
    expect(again.nonJsonRpcLines).toEqual([]);
  });
});
