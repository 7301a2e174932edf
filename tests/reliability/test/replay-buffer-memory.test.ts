// The WebSocket resume replay buffer bounds memory, not payload (issue 32 item 4): a client that negotiates resume,
// floods requests each answered with a small frame, reads every answer and acknowledges none, against the built
// `acpremote serve`; the server's live memory (heap + Buffers after a full GC) grows no more than the buffer's
// bound + 25 %.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  fixturePath,
  killStartedProcesses,
  liveMemory,
  MEMORY_PROBE,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const RESUME_SUBPROTOCOL = 'acpkit.resume.v1';

describe('the resume replay buffer under a client that never acknowledges (issue 32 item 4)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it.each([
    ['serve', [`${fixturePath('echo-agent-app.mjs')}:createEchoAgent`]],
    ['expose', ['--', process.execPath, fixturePath('hold-agent.mjs')]],
  ])(
    '`%s`: small answers to a flood, read and never acknowledged, keep live memory within the bound + 25 %%',
    async (command, target) => {
      const budget = 1024 * 1024;
      const messageBytes = 1024 * 1024;
      const bound = budget + messageBytes;
      const probeDirectory = mkdtempSync(join(tmpdir(), 'acpkit-probe-'));
      try {
        const server = await startAcpremote(
          [
            command,
            '--metrics',
            // The flood outlasts no stall timeout: it measures what the buffer keeps, not the close.
            '--stall-timeout',
            '600',
            '--resume-buffer-bytes',
            String(budget),
            '--max-message-bytes',
            String(messageBytes),
            ...target,
          ],
          { nodeArgs: ['--import', MEMORY_PROBE], env: { ACPKIT_SOAK_PROBE_DIR: probeDirectory } },
        );
        servers.push(server);
        const pid = server.child.pid!;
        const socket = new WebSocket(server.url, [RESUME_SUBPROTOCOL], { perMessageDeflate: false });
        socket.on('error', () => {});
        await once(socket, 'open');
        expect(socket.protocol).toBe(RESUME_SUBPROTOCOL);
        let answers = 0;
        // Every data frame is read (text); the control frames (welcome, acknowledgements) too; none is acknowledged.
        socket.on('message', (_data, isBinary) => {
          if (!isBinary) answers += 1;
        });
        let nextId = 1;
        /** Sends requests (each answered by the SDK with a ~60-byte frame) until `total` answers arrived. */
        const flood = async (total: number) => {
          while (answers < total) {
            if (socket.bufferedAmount < 256 * 1024)
              for (let index = 0; index < 256; index += 1)
                socket.send(`{"jsonrpc":"2.0","id":${nextId++},"method":"_x/echo","params":{}}`);
            await new Promise((resolve) => setImmediate(resolve));
          }
        };
        await flood(2_000);
        const before = await liveMemory(pid, probeDirectory, 1);
        // Enough answers to fill the buffer several times over, counted at their bytes alone.
        await flood(2_000 + Math.ceil((2 * bound) / 40));
        await waitFor(
          () => socket.bufferedAmount === 0,
          10_000,
          () => `${socket.bufferedAmount} bytes unsent`,
        );
        const metricsUrl = server.url.replace(/^ws/, 'http').replace(/\/acp\/ws$/, '/metrics');
        const sendQueue = async () =>
          Number(
            /^acpremote_buffered_bytes\{buffer="send_queue"\} (\d+)/m.exec(
              await (await fetch(metricsUrl)).text(),
            )?.[1],
          );
        // Answers still on their way out (the server's send queue, bounded apart) are not what the replay buffer
        // keeps: a loaded machine reads them late, so wait until every one has left before measuring.
        // Requests still on their way in (the agent's stdin queue, the socket's) are not kept by it either: wait
        // until every request sent has its answer, then until the send queue is empty.
        const drainDeadline = Date.now() + 30_000;
        while (answers < nextId - 1) {
          if (Date.now() > drainDeadline)
            throw new Error(`${nextId - 1 - answers} requests still unanswered`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        for (let queued = await sendQueue(); queued !== 0; queued = await sendQueue()) {
          if (Date.now() > drainDeadline) throw new Error(`${queued} bytes still in the server's send queue`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const after = await liveMemory(pid, probeDirectory, 2);
        const metrics = await (await fetch(metricsUrl)).text();
        const kept = Number(/^acpremote_buffered_bytes\{buffer="replay"\} (\d+)/m.exec(metrics)?.[1]);
        console.info(`replay gauge: ${kept} bytes`);
        const growth = after - before;
        console.info(
          `${command}: replay buffer: ${answers} answers never acknowledged; live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB (bound ${(bound / 2 ** 20).toFixed(1)} MiB)`,
        );
        expect(socket.readyState).toBe(WebSocket.OPEN);
        expect(growth, `live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB`).toBeLessThanOrEqual(
          bound * 1.25,
        );
        socket.terminate();
      } finally {
        rmSync(probeDirectory, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
