// What the built `acpremote expose` does with the processes it starts when things go wrong: a spawn that fails for
// lack of file descriptors (issue 14, item 11), and a grandchild that escaped its process group (item 14), also when
// a second SIGTERM cuts the drain short (issue 19, item 6).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { webSocketPeer } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import { isAlive, processGroupOf, reapAll, trackProcessGroup, waitUntil } from './support/processes.js';
import { startExpose } from './support/remote-servers.js';
import { closeAllWebSockets, closeOf, openAcceptedWebSocket } from './support/websocket.js';

afterEach(async () => {
  closeAllWebSockets();
  await reapAll();
});

/** The soft `RLIMIT_NOFILE` of a process (Linux /proc). */
function openFileSoftLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1]);
}

/** The lowest file descriptor number `pid` does not use: the next one it opens. */
function lowestFreeDescriptor(pid: number): number {
  let descriptor = 0;
  while (existsSync(`/proc/${pid}/fd/${descriptor}`)) descriptor += 1;
  return descriptor;
}

function setOpenFileSoftLimit(pid: number, limit: number): void {
  execFileSync('prlimit', ['--pid', String(pid), `--nofile=${limit}:`]);
}

describe('acpremote expose when the agent cannot be spawned', () => {
  it('closes with 4001 "agent process failed to start: EMFILE" when file descriptors run out, and keeps serving', async () => {
    const server = await startExpose([process.execPath, fixturePath('remote-escaping-agent.js')]);
    const pid = server.process.pid;
    const originalLimit = openFileSoftLimit(pid);
    // Room for the accepted socket and one more descriptor, but not for the child's stdio pipes.
    setOpenFileSoftLimit(pid, lowestFreeDescriptor(pid) + 2);

    const starved = await openAcceptedWebSocket(server.url);
    const closed = await closeOf(starved);
    expect(closed).toEqual({ code: 4001, reason: 'agent process failed to start: EMFILE' });

    setOpenFileSoftLimit(pid, originalLimit);
    const socket = await openAcceptedWebSocket(server.url);
    const answer = await webSocketPeer(socket).request(1, '_fixture/pids');
    const { escapedPid } = answer.result as { escapedPid: number };
    trackProcessGroup(processGroupOf(escapedPid) ?? escapedPid);
    expect(server.process.stderr()).toContain('agent process failed to start: EMFILE');
    expect(server.process.stderr()).not.toMatch(/TypeError|connection handler failed/);
  });
});

describe('acpremote expose and a grandchild that left the process group (setsid)', () => {
  async function exposeEscapingAgent() {
    const server = await startExpose(
      [process.execPath, fixturePath('remote-escaping-agent.js')],
      ['--terminate-timeout', '0.5'],
    );
    const socket = await openAcceptedWebSocket(server.url);
    const answer = await webSocketPeer(socket).request(1, '_fixture/pids');
    const { pid, escapedPid } = answer.result as { pid: number; escapedPid: number };
    const escapedGroup = processGroupOf(escapedPid);
    // Cleanup of last resort if the server does not reap it; the assertions below are what count.
    trackProcessGroup(escapedGroup ?? escapedPid);
    expect(isAlive(escapedPid)).toBe(true);
    expect(escapedGroup).toBe(escapedPid);
    expect(processGroupOf(pid)).not.toBe(escapedGroup);
    return { server, socket, pid, escapedPid };
  }

  it('is reaped when its connection closes, even after the agent that started it exited', async () => {
    const { server, socket, pid, escapedPid } = await exposeEscapingAgent();
    const closed = closeOf(socket);
    socket.close(1000, 'done');
    await closed;
    await waitUntil(() => !isAlive(pid), 'the agent is gone');
    await waitUntil(() => !isAlive(escapedPid), 'the escaped grandchild is gone');
    expect(isAlive(server.process.pid)).toBe(true);
  });

  it('is reaped when a second SIGTERM makes the server exit at once during its drain', async () => {
    const { server, pid, escapedPid } = await exposeEscapingAgent();
    server.process.child.kill('SIGTERM');
    await server.process.waitForStderr(/Received SIGTERM; draining/);
    server.process.child.kill('SIGTERM');
    expect(await server.process.exited).toEqual({ code: 143, signal: null });
    await waitUntil(() => !isAlive(pid), 'the agent is gone');
    await waitUntil(() => !isAlive(escapedPid), 'the escaped grandchild is gone');
  });

  it('is reaped when the server stops with the connection open', async () => {
    const { server, escapedPid } = await exposeEscapingAgent();
    server.process.child.kill('SIGINT');
    expect((await server.process.exited).code).toBe(130);
    expect(isAlive(escapedPid)).toBe(false);
  });
});
