import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  childPids,
  killStartedProcesses,
  openFileDescriptors,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';
import { NIGHTLY } from './support/property-runs.js';

// 300 cycles in the test command (each spawns and reaps a `cat`: ~40 ms of the server's CPU), 3,000 in the
// nightly-size mode: the check is exact (no child left, not one descriptor above the baseline), so a leak on every
// cycle, or on one cycle in a hundred, fails either way; the nightly size is for the rarer races.
const CYCLES = NIGHTLY ? 3_000 : 300;
const CONCURRENCY = 8;

/** One connect → echo one message through `cat` → disconnect cycle. */
async function cycle(url: string, index: number): Promise<void> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  socket.on('error', () => {});
  await once(socket, 'open');
  const echoed = once(socket, 'message');
  const request = JSON.stringify({ jsonrpc: '2.0', id: index, method: '_test/churn', params: { index } });
  socket.send(request);
  const [data] = (await echoed) as [Buffer];
  expect(data.toString()).toBe(request);
  const closed = once(socket, 'close');
  socket.close(1000, 'done');
  await closed;
}

describe('acpremote expose under connect/disconnect churn', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await killStartedProcesses();
  });

  it(
    `leaves zero child processes and returns to its baseline file descriptors after ${CYCLES} cycles`,
    async () => {
      // `cat` is a perfect, very cheap stdio echo "agent": the test measures the relay's lifecycle, not Node start-up.
      server = await startAcpremote(['expose', '--terminate-timeout', '2', '--', 'cat']);
      const pid = server.child.pid!;
      // Warm up lazily opened descriptors (epoll, the first socket's buffers) before taking the baseline.
      for (let index = 0; index < 3; index += 1) await cycle(server.url, -index);
      await waitFor(
        () => childPids(pid).length === 0,
        10_000,
        () => `children: ${childPids(pid).join(', ')}`,
      );
      const baselineDescriptors = openFileDescriptors(pid);

      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CYCLES) {
            const index = next;
            next += 1;
            await cycle(server!.url, index);
          }
        }),
      );

      await waitFor(
        () => childPids(pid).length === 0 && openFileDescriptors(pid) <= baselineDescriptors,
        15_000,
        () =>
          `children left: [${childPids(pid).join(', ')}], descriptors ${openFileDescriptors(pid)} (baseline ${baselineDescriptors})`,
      );
      expect(childPids(pid)).toEqual([]);
      expect(openFileDescriptors(pid)).toBeLessThanOrEqual(baselineDescriptors);
      expect(server.child.exitCode).toBeNull();
    },
    NIGHTLY ? 1_800_000 : 180_000,
  );
});
