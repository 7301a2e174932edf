import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  startAcpremote,
} from './support/processes.js';
import { NIGHTLY, PROCESS_PROPERTY_RUNS } from './support/property-runs.js';
import { openPeer, type Peer } from './support/websocket-peer.js';

const MAX_MESSAGE_BYTES = 64 * 1024;

/** One WebSocket frame as a client could send it, hostile or not. */
type Frame = { data: string | Buffer; binary: boolean };

const text = (data: string): Frame => ({ data, binary: false });

/** Frames a server answers by closing the connection (1003 binary, 1007 invalid UTF-8, 1009 or an error when too big). */
const closingFrame: fc.Arbitrary<Frame> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((bytes) => ({ data: Buffer.from(bytes), binary: true })),
  // Invalid UTF-8 in a text frame (a lone continuation byte or an overlong lead byte somewhere in it).
  fc
    .tuple(
      fc.uint8Array({ maxLength: 64 }),
      fc.constantFrom(0x80, 0xc0, 0xff, 0xed),
      fc.uint8Array({ maxLength: 64 }),
    )
    .map(([head, bad, tail]) => ({ data: Buffer.from([...head, bad, ...tail]), binary: false })),
  // Over the message limit, sometimes a valid request, sometimes not.
  fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.boolean()).map(([extra, asRequest]) =>
    text(
      asRequest
        ? JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: '_x',
            params: 'x'.repeat(MAX_MESSAGE_BYTES + extra),
          })
        : 'y'.repeat(MAX_MESSAGE_BYTES + extra),
    ),
  ),
);

/** Frames a server answers with an error, forwards, or drops, keeping the connection. */
const survivableFrame: fc.Arbitrary<Frame> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }).map(text),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }).map((items) => text(JSON.stringify(items))),
  fc.jsonValue({ maxDepth: 6 }).map((value) => text(JSON.stringify(value) ?? 'null')),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => text(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
  // Raw newlines and carriage returns inside a frame: an NDJSON relay must not turn them into extra messages.
  fc
    .array(fc.string({ maxLength: 20 }), { minLength: 2, maxLength: 4 })
    .map((parts) => text(parts.join('\n'))),
  fc.constant(text('{"jsonrpc":"2.0","id":1,"method":"_x"}\r\n{"jsonrpc":"2.0","id":2,"method":"_y"}')),
  fc
    .record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })),
        method: fc.oneof(
          fc.constantFrom('initialize', 'session/prompt', '$/cancel_request', 'session/fork', '_vendor/x'),
          fc.string({ maxLength: 20 }),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        params: fc.jsonValue({ maxDepth: 3 }),
        result: fc.jsonValue({ maxDepth: 2 }),
        error: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((message) => text(JSON.stringify(message))),
  fc.constant(text('')),
);

/**
 * One frame: mostly survivable ones, so most cases keep their connection (a reconnect to `expose` spawns a
 * process), while about one case in ten still ends in a closing frame.
 */
const frameArbitrary = fc.oneof(
  { arbitrary: survivableFrame, weight: 24 },
  { arbitrary: closingFrame, weight: 1 },
);

/**
 * Sends generated frame sequences on a victim connection of a server process; after each case another connection
 * (the sentinel) must still complete a round trip, and the victim must either answer too or have been closed with
 * a WebSocket close code. Both servers run as separate processes, so a crash is an exit, not a test-runner crash.
 */
async function fuzz(server: RunningServer, initialize: boolean): Promise<{ closes: Map<number, number> }> {
  const open = async () => {
    const peer = await openPeer(server.url);
    if (initialize) await peer.roundTrip('initialize', { protocolVersion: 1, clientCapabilities: {} });
    return peer;
  };
  const sentinel = await open();
  let victim: Peer = await open();
  const closes = new Map<number, number>();
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(frameArbitrary, { minLength: 1, maxLength: 4 }), async (frames) => {
        for (const frame of frames) {
          if (!victim.isOpen) break;
          victim.socket.send(frame.data, { binary: frame.binary }, () => {});
        }
        const reply = await sentinel.roundTrip('_test/echo', { sentinel: true });
        expect(reply.result ?? reply.params).toEqual({ sentinel: true });
        if (victim.isOpen) {
          try {
            const victimReply = await victim.roundTrip('_test/echo', { victim: true });
            expect(victimReply.result ?? victimReply.params).toEqual({ victim: true });
          } catch (error) {
            // A close while the probe was in flight is a legitimate outcome of the frames; anything else is not.
            if (victim.isOpen) throw error;
          }
        }
        if (!victim.isOpen) {
          const { code } = await victim.closed;
          // The server closed with a real close code (no 1006 abnormal drop, no crash).
          expect(code).not.toBe(1006);
          closes.set(code, (closes.get(code) ?? 0) + 1);
          victim = await open();
        }
      }),
      { numRuns: PROCESS_PROPERTY_RUNS },
    );
  } finally {
    await sentinel.close();
    await victim.close();
  }
  expect(server.child.exitCode).toBeNull();
  expect(server.stdout()).toBe('');
  return { closes };
}

describe('random frames against acpremote servers (property)', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await killStartedProcesses();
  });

  const timeout = NIGHTLY ? 3_600_000 : 240_000;

  it(
    'expose (stdio relay to cat) never crashes and never disturbs another connection',
    async () => {
      server = await startAcpremote([
        'expose',
        '--max-message-bytes',
        String(MAX_MESSAGE_BYTES),
        '--stderr',
        'discard',
        '--',
        'cat',
      ]);
      const { closes } = await fuzz(server, false);
      // The generators reach the closing paths (binary, invalid UTF-8, oversize) many times.
      expect([...closes.values()].reduce((total, count) => total + count, 0)).toBeGreaterThan(
        PROCESS_PROPERTY_RUNS / 20,
      );
    },
    timeout,
  );

  it(
    'serve (in-process SDK agent) never crashes and never disturbs another connection',
    async () => {
      server = await startAcpremote([
        'serve',
        '--max-message-bytes',
        String(MAX_MESSAGE_BYTES),
        `${fixturePath('echo-agent-app.mjs')}:createEchoAgent`,
      ]);
      const { closes } = await fuzz(server, true);
      expect([...closes.values()].reduce((total, count) => total + count, 0)).toBeGreaterThan(
        PROCESS_PROPERTY_RUNS / 20,
      );
    },
    timeout,
  );
});
