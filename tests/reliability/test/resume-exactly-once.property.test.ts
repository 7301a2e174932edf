// Resume under traffic with the connection cut at random byte offsets, in both directions, through a fault-injecting
// TCP proxy: every JSON-RPC message arrives exactly once and in order, both ways. Twice: the built `acpremote mirror`
// in front of `acpremote expose` (real processes), and `connectAcp` in front of `serveAcp` (the library).
import { connectAcp, serveAcp, silentLogger } from '@acpkit/remote';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CutPlan, startFaultProxy } from './support/fault-proxy.js';
import {
  ACPREMOTE_CLI,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  waitFor,
} from './support/processes.js';
import { NIGHTLY } from './support/property-runs.js';
import { expectedDownstream, sequence, sequenceApp } from './support/sequence-app.js';

/** Cases per property: each process case spawns a mirror, so fewer than the suite's frame properties. */
const PROCESS_RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? (NIGHTLY ? 300 : 12));
const LIBRARY_RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? (NIGHTLY ? 2_000 : 100));

/**
 * Cut plans for successive WebSocket connections. The first connection is cut only past its handshake and the first
 * exchange, `initialize` (the server's `welcome` comes before its first answer, and a server keeps a session for a
 * resume only once its agent answered `initialize`: before that, nothing can be resumed); reconnections anywhere, in
 * their handshake too.
 */
const plans = fc
  .tuple(cutPlan(1_000), fc.array(fc.option(cutPlan(0), { nil: undefined }), { maxLength: 3 }))
  .map(([first, later]) => [first, ...later]);

function cutPlan(minimum: number): fc.Arbitrary<CutPlan> {
  return fc.record({
    direction: fc.constantFrom('up' as const, 'down' as const),
    offset: fc.integer({ min: minimum, max: 6_000 }),
  });
}

/**
 * Runs the exactly-once property `runs` times: `runCase(cuts, count, ticks)` sends `count` requests, each answered
 * after `ticks` notifications, through a proxy cutting by `cuts`, checks both directions, and returns how many cuts
 * happened. Most cases must really cut (a plan past the last byte cuts nothing).
 */
async function assertExactlyOnce(
  runs: number,
  maxCount: number,
  runCase: (cuts: Array<CutPlan | undefined>, count: number, ticks: number) => Promise<number>,
): Promise<void> {
  let cutRuns = 0;
  await fc.assert(
    fc.asyncProperty(
      plans,
      fc.integer({ min: 40, max: maxCount }),
      fc.integer({ min: 0, max: 3 }),
      async (cuts, count, ticks) => {
        if ((await runCase(cuts, count, ticks)) > 0) cutRuns += 1;
      },
    ),
    { numRuns: runs },
  );
  expect(cutRuns).toBeGreaterThan(runs / 2);
}

describe('resume through a fault proxy: acpremote mirror → acpremote expose', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startAcpremote(['expose', '--', process.execPath, fixturePath('hold-agent.mjs')]);
  });
  afterAll(async () => {
    await server.stop();
    await killStartedProcesses();
  });

  it('delivers every message exactly once and in order, both ways, wherever the connections are cut', async () => {
    await assertExactlyOnce(PROCESS_RUNS, 120, async (cuts, count, ticks) => {
      const proxy = await startFaultProxy(server.port, cuts);
      try {
        const editor = spawnStdioPeer(process.execPath, [
          ACPREMOTE_CLI,
          'mirror',
          `ws://127.0.0.1:${proxy.port}/acp/ws`,
        ]);
        const initialize = await editor.request(
          'initialize',
          { protocolVersion: 1, clientCapabilities: {} },
          0,
        );
        expect(initialize.result).toBeDefined();
        await Promise.all(sequence(count).map((seq) => editor.request('_test/echo', { seq, ticks }, seq)));
        const log = await editor.request('_test/received', {}, 'log');
        // Editor → agent: each request reached the agent once, in order.
        expect(log.result).toEqual({ received: sequence(count) });
        // Agent → editor: every notification and answer once, in order (the log's answer last).
        expect(editor.lines.slice(1, -1).map((line) => JSON.parse(line))).toEqual(
          expectedDownstream(count, ticks),
        );
        expect(editor.nonJsonRpcLines).toEqual([]);
        editor.child.stdin.end();
        expect(await editor.exited).toBe(0);
        return proxy.cuts;
      } finally {
        await proxy.close();
      }
    });
  });
});

describe('resume through a fault proxy: connectAcp → serveAcp', () => {
  it('delivers every message exactly once and in order, both ways, and tells each drop and resume', async () => {
    const server = await serveAcp(sequenceApp, { port: 0, logger: silentLogger });
    try {
      await assertExactlyOnce(LIBRARY_RUNS, 150, async (cuts, count, ticks) => {
        const proxy = await startFaultProxy(server.port, cuts);
        const events: string[] = [];
        const remote = await connectAcp(`ws://127.0.0.1:${proxy.port}/acp/ws`, {
          logger: silentLogger,
          onConnectionEvent: (event) => events.push(event.type),
        });
        const seen = (type: string) => events.filter((seenType) => seenType === type).length;
        try {
          const writer = remote.stream.writable.getWriter();
          const reader = remote.stream.readable.getReader();
          await writer.write({
            jsonrpc: '2.0',
            id: 'init',
            method: 'initialize',
            params: { protocolVersion: 1 },
          } as AnyMessage);
          expect(((await reader.read()).value as { id?: unknown }).id).toBe('init');
          for (let seq = 1; seq <= count; seq += 1) {
            await writer.write({
              jsonrpc: '2.0',
              id: seq,
              method: '_test/echo',
              params: { seq, ticks },
            } as AnyMessage);
          }
          await writer.write({
            jsonrpc: '2.0',
            id: 'log',
            method: '_test/received',
            params: {},
          } as AnyMessage);
          const downstream: unknown[] = [];
          for (;;) {
            const { value, done } = await reader.read();
            if (done) throw new Error(`the stream ended: ${JSON.stringify(await remote.closed)}`);
            if ((value as { id?: unknown }).id === 'log') {
              expect((value as { result: unknown }).result).toEqual({ received: sequence(count) });
              break;
            }
            downstream.push(value);
          }
          expect(downstream).toEqual(expectedDownstream(count, ticks));
          // Every drop of a live connection was followed by a resume, never a failure (a cut during a reconnect's
          // handshake is one more attempt of the same resume). A cut may have come after the last answer arrived
          // (an acknowledgement the client sent while that answer was on its way): the client learns of it a moment
          // later, so wait for its events to tell it rather than read them at once.
          if (proxy.cuts > 0)
            await waitFor(
              () =>
                seen('resume-failed') > 0 ||
                (seen('interrupted') > 0 && seen('resumed') === seen('interrupted')),
              10_000,
              () => `the proxy cut ${proxy.cuts} time(s); the client told: ${events.join(', ') || 'nothing'}`,
            );
          expect(events).not.toContain('resume-failed');
          expect(seen('resumed')).toBe(seen('interrupted'));
          if (proxy.cuts > 0) expect(seen('interrupted')).toBeGreaterThan(0);
          return proxy.cuts;
        } finally {
          await remote.close();
          await proxy.close();
        }
      });
    } finally {
      await server.close();
    }
  });
});
