import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { childPids, fixturePath, killStartedProcesses, track, waitFor } from './support/processes.js';
import { tcpSocket } from './support/websocket-peer.js';

// Heartbeats are slow here, so only the send-stall timeout can end the stalled connection.
const PING_INTERVAL_MS = 60_000;
const STALL_TIMEOUT_MS = 500;

/** Resident set size of a process in bytes (Linux /proc). */
function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

describe('serveCommand with a client that stops reading', () => {
  afterEach(() => killStartedProcesses());

  it('keeps server memory bounded while the agent floods, then closes the stalled socket after the stall timeout with a logged reason', async () => {
    const host = track(
      spawn(
        process.execPath,
        [
          fixturePath('serve-command-host.mjs'),
          String(PING_INTERVAL_MS),
          '--',
          process.execPath,
          fixturePath('flood-agent.mjs'),
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, ACPKIT_TEST_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS) },
        },
      ),
    );
    let stderr = '';
    const stderrLines: ((text: string) => void)[] = [];
    host.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      for (const listener of stderrLines) listener(stderr);
    });
    const logged = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        const check = (text: string) => {
          const match = pattern.exec(text);
          if (match) resolve(match);
        };
        check(stderr);
        stderrLines.push(check);
      });
    const [, url] = (await logged(/listening (\S+)/)) as unknown as [string, string];
    const pid = host.pid!;

    const socket = new WebSocket(url!, { perMessageDeflate: false });
    socket.on('error', () => {});
    await once(socket, 'open');
    let receivedBytes = 0;
    socket.on('message', (data: Buffer) => {
      receivedBytes += data.length;
    });
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: '_test/start', params: {} }));
    // The flood reaches the client while it reads...
    await waitFor(
      () => receivedBytes > 4 * 1024 * 1024,
      10_000,
      () => `received ${receivedBytes} bytes`,
    );
    const baseline = residentBytes(pid);

    // ...then the client stops reading: its TCP socket is paused, so the kernel buffers fill and stay full.
    tcpSocket(socket).pause();
    const stalledAt = performance.now();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
    }, 20);
    try {
      await logged(/connection closed: send stalled, the client stopped reading/);
    } finally {
      clearInterval(sampler);
    }
    const stalledForMs = performance.now() - stalledAt;

    // Without backpressure a 64 KiB-per-write flood buffers hundreds of MiB per second in the relay.
    expect(peak - baseline).toBeLessThan(48 * 1024 * 1024);
    // The stall timeout ends the connection (plus sampling and scheduling slack on a busy machine; the send buffer
    // may already have stopped draining before the client paused, so there is no lower bound here).
    expect(stalledForMs).toBeLessThan(STALL_TIMEOUT_MS + 4_000);
    // The flooding agent is stopped and reaped; the server keeps running.
    await waitFor(
      () => childPids(pid).length === 0,
      10_000,
      () => `children left: ${childPids(pid).join(', ')}`,
    );
    expect(host.exitCode).toBeNull();

    // When the client reads again it drains what was in flight and sees the connection was cut (no close frame
    // can pass a peer that does not read).
    tcpSocket(socket).resume();
    expect(await closed).toBe(1006);
    host.kill('SIGTERM');
    expect((await once(host, 'exit'))[0]).toBe(0);
  }, 60_000);
});
