// The resume link under messages larger than its replay buffer (issue 19, item 1): `connectAcp` → fault proxy →
// `serveAcp`, both sides with a 2 MiB replay buffer, messages of random sizes up to twice that in both directions,
// connections cut at random byte offsets. Every message arrives exactly once and in order, both ways, and none waits
// without bound: a link that stops making progress is closed by the stall guard (which this property would see as a
// failed connection), never left hanging.
import { connectAcp, serveAcp, silentLogger } from '@acpkit/remote';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CutPlan, startFaultProxy } from './support/fault-proxy.js';
import { NIGHTLY } from './support/property-runs.js';
import { streamApp } from './support/stream-app.js';

const RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? (NIGHTLY ? 300 : 10));
/** Both sides' replay buffer bound; messages go up to twice it (the default message limit, 16 MiB, allows them). */
const BUFFER_BYTES = 2 * 1024 * 1024;
/** A link with no progress for this long is closed: the bound on how long any message can wait. */
const STALL_TIMEOUT_MS = 10_000;

const size = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 4_096 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 2 * BUFFER_BYTES }) },
);
/** Bytes every run carries at least in each direction, so the first connection's cut always falls inside traffic. */
const FIRST_EXCHANGE_MIN = 8_192;
/** The first connection is cut only past the handshake and `initialize` (a session is resumable from then on). */
const FIRST_CUT_MIN = 1_000;
/**
 * Bytes of padding in each request (`up`, client → server) and in its answer (`down`, server → client). The first
 * exchange carries at least {@link FIRST_EXCHANGE_MIN} bytes each way.
 */
const exchanges = fc
  .tuple(
    fc.record({
      up: fc.integer({ min: FIRST_EXCHANGE_MIN, max: 2 * BUFFER_BYTES }),
      down: fc.integer({ min: FIRST_EXCHANGE_MIN, max: 2 * BUFFER_BYTES }),
    }),
    fc.array(fc.record({ up: size, down: size }), { maxLength: 3 }),
  )
  .map(([first, rest]) => [first, ...rest]);

type Exchange = { up: number; down: number };

/** A cut of a later connection: anywhere in its first bytes, the replay included. */
const laterCut: fc.Arbitrary<CutPlan> = fc.record({
  direction: fc.constantFrom('up' as const, 'down' as const),
  offset: fc.integer({ min: 0, max: 3 * BUFFER_BYTES }),
});

/**
 * The cut plans for one run's traffic. The first connection is always cut, at an offset below the padding its
 * direction carries (so below the bytes that connection sees): a run whose cut falls past the end of its traffic would
 * test nothing, and counting on chance for enough cut runs made this test flaky. Later connections may be cut anywhere.
 */
function plansFor(traffic: readonly Exchange[]): fc.Arbitrary<(CutPlan | undefined)[]> {
  const firstCut = fc
    .record({
      direction: fc.constantFrom('up' as const, 'down' as const),
      at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    })
    .map(({ direction, at }) => {
      const padding = traffic.reduce((sum, exchange) => sum + exchange[direction], 0);
      return { direction, offset: FIRST_CUT_MIN + Math.floor(at * (padding - FIRST_CUT_MIN)) };
    });
  return fc
    .tuple(firstCut, fc.array(fc.option(laterCut, { nil: undefined }), { maxLength: 3 }))
    .map(([first, later]) => [first, ...later]);
}

/** One run: the traffic, and the cuts that land inside it. */
const runs = exchanges.chain((traffic) => plansFor(traffic).map((cuts) => ({ traffic, cuts })));

/** An in-process agent that records each request's `seq` and answers it with `down` bytes of padding. */
function paddingApp() {
  const received: number[] = [];
  return streamApp((message) => {
    if (message.method === '_test/received') return [{ id: message.id, result: { received } }];
    if (message.method === '_test/exchange') received.push(message.params.seq);
    return [
      { id: message.id, result: { seq: message.params?.seq, pad: 'd'.repeat(message.params?.down ?? 0) } },
    ];
  });
}

describe('resume with messages up to twice the replay buffer, cut anywhere: connectAcp → serveAcp', () => {
  let server: Awaited<ReturnType<typeof serveAcp>>;
  beforeAll(async () => {
    server = await serveAcp(paddingApp, {
      port: 0,
      logger: silentLogger,
      resumeBufferBytes: BUFFER_BYTES,
      stallTimeoutMs: STALL_TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('delivers every message exactly once, in order, both ways', async () => {
    let cutRuns = 0;
    await fc.assert(
      fc.asyncProperty(runs, async ({ traffic, cuts }) => {
        const proxy = await startFaultProxy(server.port, cuts);
        const events: string[] = [];
        const remote = await connectAcp(`ws://127.0.0.1:${proxy.port}/acp/ws`, {
          logger: silentLogger,
          resumeBufferBytes: BUFFER_BYTES,
          onConnectionEvent: (event) =>
            events.push(event.type === 'resume-failed' ? event.message : event.type),
        });
        try {
          const writer = remote.stream.writable.getWriter();
          const reader = remote.stream.readable.getReader();
          const read = async () => {
            const { value, done } = await reader.read();
            if (done) throw new Error(`the stream ended: ${JSON.stringify(await remote.closed)} ${events}`);
            return value as { id: unknown; result: { seq?: number; pad?: string; received?: number[] } };
          };
          await writer.write({
            jsonrpc: '2.0',
            id: 'init',
            method: 'initialize',
            params: { protocolVersion: 1 },
          } as AnyMessage);
          expect((await read()).id).toBe('init');
          for (const [index, exchange] of traffic.entries()) {
            await writer.write({
              jsonrpc: '2.0',
              id: index + 1,
              method: '_test/exchange',
              params: { seq: index + 1, down: exchange.down, pad: 'u'.repeat(exchange.up) },
            } as AnyMessage);
          }
          await writer.write({
            jsonrpc: '2.0',
            id: 'log',
            method: '_test/received',
            params: {},
          } as AnyMessage);
          // Server → client: each answer once, in order, with all its bytes.
          for (const [index, exchange] of traffic.entries()) {
            const answer = await read();
            expect(answer.id).toBe(index + 1);
            expect(answer.result.pad?.length).toBe(exchange.down);
          }
          // Client → server: each request reached the agent once, in order.
          const log = await read();
          expect(log).toMatchObject({
            id: 'log',
            result: { received: traffic.map((_, index) => index + 1) },
          });
          expect(events.filter((event) => event !== 'interrupted' && event !== 'resumed')).toEqual([]);
          if (proxy.cuts > 0) cutRuns += 1;
        } finally {
          await remote.close();
          await proxy.close();
        }
      }),
      { numRuns: RUNS },
    );
    // Every run's first connection was cut inside its traffic: the property exercised resume every time.
    expect(cutRuns).toBe(RUNS);
  });
});
