import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';
import { startServeCommandHost } from './support/raw-agent-relay.js';
import { tcpSocket } from './support/websocket-peer.js';

const FLOOD_MS = 6_000;
const RSS_BOUND_BYTES = 64 * 1024 * 1024;
/** How often the server's RSS is sampled during a flood. */
const SAMPLE_MS = 20;

/** Resident set size of a process in bytes (Linux /proc). */
function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

/**
 * Opens a client that never reads (its TCP socket is paused at once) and sends `frame` as fast as the server
 * accepts it for `durationMs`, sampling the server's RSS. The client keeps at most 1 MiB of its own unsent data,
 * so its memory stays small and the flood is exactly as fast as the server reads.
 */
async function floodWithoutReading(url: string, frame: string, serverPid: number, durationMs: number) {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  socket.on('error', () => {});
  await once(socket, 'open');
  const raw = tcpSocket(socket);
  raw.pause();
  const baseline = residentBytes(serverPid);
  let peak = baseline;
  let sent = 0;
  const deadline = performance.now() + durationMs;
  let lastSample = 0;
  while (performance.now() < deadline && socket.readyState === WebSocket.OPEN) {
    if (performance.now() - lastSample > SAMPLE_MS) {
      lastSample = performance.now();
      peak = Math.max(peak, residentBytes(serverPid));
    }
    if (socket.bufferedAmount < 1024 * 1024) {
      for (let index = 0; index < 256; index += 1) socket.send(frame);
      sent += 256;
      // Yield to the event loop (socket writes) without a timer-based wait.
      await new Promise((resolve) => setImmediate(resolve));
    } else {
      // The server stopped reading (its pushback is what is under test): wait for room instead of spinning, waking
      // to sample its memory.
      const waited = new AbortController();
      await Promise.race([
        once(raw, 'drain', { signal: waited.signal }),
        delay(SAMPLE_MS, undefined, { signal: waited.signal }),
      ]);
      waited.abort();
    }
  }
  socket.terminate();
  return { growth: peak - baseline, sent };
}

describe('a client that sends cheap frames and never reads (issue 14 item 6)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('`expose -- cat`: 1-byte invalid frames, each answered with an error, keep server memory bounded and the log short', async () => {
    const server = await startAcpremote(['expose', '--', 'cat']);
    servers.push(server);
    const { growth, sent } = await floodWithoutReading(server.url, 'x', server.child.pid!, FLOOD_MS);
    expect(sent).toBeGreaterThan(1_000);
    expect(growth).toBeLessThan(RSS_BOUND_BYTES);
    // Per-frame warnings are rate-limited: far fewer lines than frames.
    const warnings = server.stderr().match(/invalid message/g) ?? [];
    expect(warnings.length).toBeLessThan(100);
    // The server still serves others.
    const other = new WebSocket(server.url);
    await once(other, 'open');
    const reply = once(other, 'message');
    other.send('{"jsonrpc":"2.0","id":1,"method":"_x/echo","params":{}}');
    expect(String((await reply)[0])).toContain('"_x/echo"');
    other.close();
  }, 60_000);

  it('`expose -- cat`: frames whose error answer echoes them (a JSON string is answered with itself as data) keep server memory bounded', async () => {
    const server = await startAcpremote(['expose', '--', 'cat']);
    servers.push(server);
    const { growth, sent } = await floodWithoutReading(
      server.url,
      JSON.stringify('x'.repeat(8 * 1024)),
      server.child.pid!,
      FLOOD_MS,
    );
    expect(sent).toBeGreaterThan(100);
    expect(growth).toBeLessThan(RSS_BOUND_BYTES);
  }, 60_000);

  it('`serve`: requests for an unknown method, each answered by the SDK, keep server memory bounded', async () => {
    const server = await startAcpremote(['serve', `${fixturePath('echo-agent-app.mjs')}:createEchoAgent`]);
    servers.push(server);
    const { growth, sent } = await floodWithoutReading(
      server.url,
      '{"jsonrpc":"2.0","id":1,"method":"_x/unknown","params":{}}',
      server.child.pid!,
      FLOOD_MS,
    );
    expect(sent).toBeGreaterThan(1_000);
    expect(growth).toBeLessThan(RSS_BOUND_BYTES);
  }, 60_000);

  it('closes the never-reading client with a logged reason once its queue stays over the high-water mark', async () => {
    const host = await startServeCommandHost(60_000, ['cat'], { ACPKIT_TEST_STALL_TIMEOUT_MS: '1000' });
    const url = host.url;
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.on('error', () => {});
    await once(socket, 'open');
    tcpSocket(socket).pause();
    const closed = once(socket, 'close');
    const flood = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN && socket.bufferedAmount < 1024 * 1024)
        for (let index = 0; index < 1_000; index += 1) socket.send('x');
    }, 1);
    try {
      await waitFor(
        () => /send stalled/.test(host.stderr()),
        30_000,
        () => host.stderr(),
      );
    } finally {
      clearInterval(flood);
    }
    tcpSocket(socket).resume();
    await closed;
    expect(host.stderr()).toMatch(/connection closed: send stalled, the client stopped reading/);
  }, 60_000);
});
