// The WebSocket resume replay buffer bounds memory, not payload (issue 32 item 4). A client floods prompts at the
// built `acpremote serve` (default flags: resume on, `--resume-buffer-bytes` 16 MiB), reads every answer and
// acknowledges none; on the RFD WebSocket, the messages kept for the durable-resume draft's `stream/resume` are held
// to the same bound. Measured at quiescence (every request answered, the server's send queue empty, a full GC), never
// by timing: the server's live memory (heap + Buffers) grows no more than the buffer's bound + 25 %, and its RSS grows
// within 64 MiB of what the same flood from a plain client (no resume) costs a fresh server.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
const MiB = 2 ** 20;

/** What the flood left in the server, measured at quiescence. */
interface FloodOutcome {
  answers: number;
  liveGrowth: number;
  rssGrowth: number;
  replayGauge: number;
}

/** The RSS the memory probe read with its last report (after the same full GC as the live figure). */
function reportedRss(directory: string, pid: number): number {
  return (JSON.parse(readFileSync(`${directory}/${pid}.json`, 'utf8')) as { rss: number }).rss;
}

/**
 * How the flooding client connects: `acpkit-resume` offers `acpkit.resume.v1` on `<mount>/ws` (never acknowledging),
 * `plain` offers nothing there (the server keeps nothing), `rfd-durable` is the RFD WebSocket at `<mount>` without a
 * subprotocol, whose sent messages the server keeps for the durable-resume draft's `stream/resume`.
 */
type FloodWire = 'acpkit-resume' | 'plain' | 'rfd-durable';

/**
 * Starts `acpremote <args>` with the memory probe, floods it with `total` small prompts over `wire`, and returns the
 * growth of live memory and RSS between a warm-up and the end.
 */
async function flood(
  servers: RunningServer[],
  args: readonly string[],
  wire: FloodWire,
  total: number,
): Promise<FloodOutcome> {
  const probeDirectory = mkdtempSync(join(tmpdir(), 'acpkit-probe-'));
  try {
    const server = await startAcpremote(
      // The flood outlasts no stall timeout: it measures what the buffer keeps, not the close.
      [args[0]!, '--metrics', '--stall-timeout', '600', ...args.slice(1)],
      { nodeArgs: ['--import', MEMORY_PROBE], env: { ACPKIT_SOAK_PROBE_DIR: probeDirectory } },
    );
    servers.push(server);
    const pid = server.child.pid!;
    const url = wire === 'rfd-durable' ? server.url.replace(/\/ws$/, '') : server.url;
    const resume = wire === 'acpkit-resume';
    const socket = new WebSocket(url, resume ? [RESUME_SUBPROTOCOL] : [], {
      perMessageDeflate: false,
    });
    socket.on('error', () => {});
    await once(socket, 'open');
    expect(socket.protocol).toBe(resume ? RESUME_SUBPROTOCOL : '');
    let answers = 0;
    // Every data frame is read (text); the control frames (welcome, acknowledgements) too; none is acknowledged.
    socket.on('message', (_data, isBinary) => {
      if (!isBinary) answers += 1;
    });
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    );
    let nextId = 1;
    /** Sends prompts (each answered with a ~150-byte frame) until `target` answers arrived. */
    const send = async (target: number) => {
      while (answers < target) {
        if (socket.bufferedAmount < 256 * 1024 && nextId - answers < 4_096)
          for (let index = 0; index < 256; index += 1)
            socket.send(
              `{"jsonrpc":"2.0","id":${nextId++},"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"go"}]}}`,
            );
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const metricsUrl = server.url.replace(/^ws/, 'http').replace(/\/acp\/ws$/, '/metrics');
    const gauge = async (buffer: string) =>
      Number(
        new RegExp(`^acpremote_buffered_bytes\\{buffer="${buffer}"\\} (\\d+)`, 'm').exec(
          await (await fetch(metricsUrl)).text(),
        )?.[1] ?? 0,
      );
    /**
     * Quiescence: every request sent has its answer (nothing queued toward the agent) and the server's send queue is
     * empty (nothing on its way out); only what the server keeps is left.
     */
    const settle = async () => {
      await waitFor(
        () => answers >= nextId,
        60_000,
        () => `${nextId - answers} requests still unanswered`,
      );
      await waitFor(
        () => socket.bufferedAmount === 0,
        10_000,
        () => `${socket.bufferedAmount} bytes unsent`,
      );
      for (let queued = await gauge('send_queue'); queued !== 0; queued = await gauge('send_queue'))
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await send(2_000);
    await settle();
    const before = await liveMemory(pid, probeDirectory, 1);
    const rssBefore = reportedRss(probeDirectory, pid);
    await send(total);
    await settle();
    const after = await liveMemory(pid, probeDirectory, 2);
    const rssAfter = reportedRss(probeDirectory, pid);
    const replayGauge = await gauge('replay');
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.terminate();
    return { answers, liveGrowth: after - before, rssGrowth: rssAfter - rssBefore, replayGauge };
  } finally {
    rmSync(probeDirectory, { recursive: true, force: true });
  }
}

/** `acpremote expose` of the hold agent keeping `budget` bytes for a resume, messages of at most 1 MiB. */
function exposeHoldAgent(budget: number): string[] {
  return [
    'expose',
    '--resume-buffer-bytes',
    String(budget),
    '--max-message-bytes',
    String(MiB),
    '--',
    process.execPath,
    fixturePath('hold-agent.mjs'),
  ];
}

const describeOutcome = (label: string, outcome: FloodOutcome) =>
  `${label}: ${outcome.answers} answers; live memory +${(outcome.liveGrowth / MiB).toFixed(1)} MiB, ` +
  `RSS +${(outcome.rssGrowth / MiB).toFixed(1)} MiB, replay gauge ${(outcome.replayGauge / MiB).toFixed(1)} MiB`;

describe('the resume replay buffer under a client that never acknowledges (issue 32 item 4)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('`serve` with its defaults: live memory within the 16 MiB bound + 25 %, RSS within 64 MiB of a plain client', async () => {
    const bound = 16 * MiB;
    const args = ['serve', `${fixturePath('echo-agent-app.mjs')}:createEchoAgent`];
    // Enough ~150-byte answers (~280 bytes each, overhead counted) to fill the bound twice over.
    const total = 2_000 + Math.ceil((2 * bound) / 280);
    const resumed = await flood(servers, args, 'acpkit-resume', total);
    const plain = await flood(servers, args, 'plain', total);
    console.info(describeOutcome('resume', resumed));
    console.info(describeOutcome('plain', plain));
    expect(resumed.replayGauge).toBeLessThanOrEqual(bound + 64 * 1024);
    expect(resumed.liveGrowth, describeOutcome('resume', resumed)).toBeLessThanOrEqual(bound * 1.25);
    expect(resumed.rssGrowth - plain.rssGrowth, describeOutcome('resume', resumed)).toBeLessThanOrEqual(
      64 * MiB,
    );
  }, 300_000);

  it('`expose` with a 1 MiB bound: small answers keep live memory within the bound + 25 %', async () => {
    const budget = MiB;
    const args = exposeHoldAgent(budget);
    const outcome = await flood(
      servers,
      args,
      'acpkit-resume',
      2_000 + Math.ceil((2 * (budget + MiB)) / 150),
    );
    console.info(describeOutcome('expose', outcome));
    expect(outcome.liveGrowth, describeOutcome('expose', outcome)).toBeLessThanOrEqual((budget + MiB) * 1.25);
  }, 180_000);

  it('the RFD WebSocket keeping messages for `stream/resume`, 8 MiB bound: live memory within the bound + 25 %, RSS within 64 MiB of a plain client', async () => {
    // Large enough that the warm-up keeps a small part of it: a bound that counted payload (each kept message costing
    // several times its bytes) would grow live memory far past it.
    const budget = 8 * MiB;
    const args = exposeHoldAgent(budget);
    // Enough small answers (each with its cursor, ~170 bytes, ~430 with the 256-byte overhead counted) to fill the
    // bound (one message larger than resumeBufferBytes) twice over.
    const total = 2_000 + Math.ceil((2 * (budget + MiB)) / 170);
    const durable = await flood(servers, args, 'rfd-durable', total);
    const plain = await flood(servers, args, 'plain', total);
    console.info(describeOutcome('rfd-durable', durable));
    console.info(describeOutcome('plain', plain));
    expect(durable.replayGauge).toBeGreaterThan(0);
    expect(durable.replayGauge).toBeLessThanOrEqual(budget + MiB);
    expect(durable.liveGrowth, describeOutcome('rfd-durable', durable)).toBeLessThanOrEqual(
      (budget + MiB) * 1.25,
    );
    expect(durable.rssGrowth - plain.rssGrowth, describeOutcome('rfd-durable', durable)).toBeLessThanOrEqual(
      64 * MiB,
    );
  }, 180_000);
});
