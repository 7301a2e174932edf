// The durable-resume draft under random cuts. Streamable HTTP: `connectAcp` → `serveAcp` through a fault-injecting
// TCP proxy that cuts the SSE GETs at random byte offsets; the client resumes each stream from its last processed
// cursor (Last-Event-ID) and drops repeats by cursor: the application gets every message exactly once, in order, each
// carrying its cursor in `_meta["acp/cursor"]`, and every interruption is followed by a resume. The RFD WebSocket: a
// client written from the draft resumes each cut socket with `stream/resume` and gets the same; so does
// `connectAcp` dialling the draft (`resumeWire: 'durable-resume'`), whose requests cut in flight are answered
// `cut_in_flight` and never sent twice.
import { connectAcp, RelayErrorCode, serveAcp, silentLogger } from '@acpkit/remote';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResumingDraftClient } from './support/draft-websocket-client.js';
import { type CutPlan, startFaultProxy } from './support/fault-proxy.js';
import { waitFor } from './support/processes.js';
import { NIGHTLY } from './support/property-runs.js';
import { expectedDownstream, sequence, sequenceApp } from './support/sequence-app.js';

/** Cases: each one opens a proxy and a connection; a few seconds in all. */
const RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? (NIGHTLY ? 1_000 : 20));

/**
 * Cut plans for successive openings of a stream: the first somewhere after `firstFrom` bytes downstream, the
 * reopened ones anywhere, up or down, in their head too.
 */
function cutPlans(firstFrom: number, firstTo: number) {
  return fc
    .tuple(
      fc.record({
        direction: fc.constant('down' as const),
        offset: fc.integer({ min: firstFrom, max: firstTo }),
      }),
      fc.array(
        fc.option(
          fc.record({
            direction: fc.constantFrom('up' as const, 'down' as const),
            offset: fc.integer({ min: 0, max: 3_000 }),
          }),
          { nil: undefined },
        ),
        { maxLength: 3 },
      ),
    )
    .map(([first, later]): Array<CutPlan | undefined> => [first, ...later]);
}

/**
 * SSE GETs: the first cut past its response head and priming block (a client cut before it holds no cursor of the
 * stream yet: its reopened GET starts live).
 */
const plans = cutPlans(300, 5_000);

/** WebSocket upgrades: the first cut after the answer to `initialize` (before it, the connection is not kept). */
const socketPlans = cutPlans(800, 6_000);

/** The message without its cursor (which it must carry, in `params._meta` or `result._meta`), and the cursor. */
function withoutCursor(message: Record<string, unknown>): { message: unknown; cursor: unknown } {
  const body = (message.params ?? message.result) as { _meta?: Record<string, unknown> } | undefined;
  const cursor = body?._meta?.['acp/cursor'];
  if (body?._meta !== undefined) {
    const { 'acp/cursor': _, ...rest } = body._meta;
    if (Object.keys(rest).length === 0) delete body._meta;
    else body._meta = rest;
  }
  return { message, cursor };
}

describe('the durable-resume draft through a fault proxy: connectAcp → serveAcp over Streamable HTTP', () => {
  it('hands every message to the application exactly once and in order, wherever the streams are cut', async () => {
    const server = await serveAcp(sequenceApp, { port: 0, logger: silentLogger });
    let cutRuns = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          plans,
          fc.integer({ min: 20, max: 80 }),
          fc.integer({ min: 0, max: 3 }),
          async (cuts, count, ticks) => {
            const proxy = await startFaultProxy(server.port, cuts, 'event-streams');
            const events: string[] = [];
            const remote = await connectAcp(`http://127.0.0.1:${proxy.port}/acp`, {
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
              for (const seq of sequence(count))
                await writer.write({
                  jsonrpc: '2.0',
                  id: seq,
                  method: '_test/echo',
                  params: { seq, ticks },
                } as AnyMessage);
              await writer.write({
                jsonrpc: '2.0',
                id: 'log',
                method: '_test/received',
                params: {},
              } as AnyMessage);
              const downstream: unknown[] = [];
              const cursors: unknown[] = [];
              for (;;) {
                const { value, done } = await reader.read();
                if (done)
                  throw new Error(
                    `the stream ended: ${JSON.stringify(await remote.closed)} (${events.join(', ')})`,
                  );
                const { message, cursor } = withoutCursor(value as Record<string, unknown>);
                cursors.push(cursor);
                if ((message as { id?: unknown }).id === 'log') {
                  expect((message as { result: unknown }).result).toEqual({ received: sequence(count) });
                  break;
                }
                downstream.push(message);
              }
              // Exactly once, in order; each with a cursor of its own.
              expect(downstream).toEqual(expectedDownstream(count, ticks));
              expect(cursors.every((cursor) => typeof cursor === 'string')).toBe(true);
              expect(new Set(cursors).size).toBe(cursors.length);
              if (proxy.cuts > 0) {
                cutRuns += 1;
                await waitFor(
                  () =>
                    seen('resume-failed') > 0 ||
                    (seen('interrupted') > 0 && seen('resumed') === seen('interrupted')),
                  10_000,
                  () =>
                    `the proxy cut ${proxy.cuts} time(s); the client told: ${events.join(', ') || 'nothing'}`,
                );
              }
              expect(events).not.toContain('resume-failed');
              expect(seen('resumed')).toBe(seen('interrupted'));
            } finally {
              await remote.close();
              await proxy.close();
            }
          },
        ),
        { numRuns: RUNS },
      );
      // Most cases really cut (a plan past the last byte cuts nothing).
      expect(cutRuns).toBeGreaterThan(RUNS / 2);
    } finally {
      await server.close();
    }
  });

  it('on the RFD WebSocket: every message exactly once and in order, wherever the sockets are cut (stream/resume)', async () => {
    const server = await serveAcp(sequenceApp, { port: 0, logger: silentLogger });
    let resumedRuns = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          socketPlans,
          fc.integer({ min: 20, max: 80 }),
          fc.integer({ min: 0, max: 3 }),
          async (cuts, count, ticks) => {
            const proxy = await startFaultProxy(server.port, cuts);
            const client = new ResumingDraftClient(`ws://127.0.0.1:${proxy.port}/acp`);
            try {
              await client.start();
              for (const seq of sequence(count))
                client.sendSeq(seq, { id: seq, method: '_test/echo', params: { seq, ticks } });
              await client.answer(count);
              // The client's own control messages (initialize, resumes, its queries) aside.
              const own = (id: unknown) => id === 'init' || /^(resume|received)-/.test(String(id));
              const cursors = client.processed.flatMap((received) =>
                received.cursor ? [received.cursor] : [],
              );
              const downstream = client.processed
                .filter((received) => !own(received.message.id))
                .map((received) => withoutCursor(received.message).message);
              expect(downstream).toEqual(expectedDownstream(count, ticks));
              expect(cursors.map(Number)).toEqual([...cursors.map(Number)].sort((a, b) => a - b));
              if (client.resumes > 0) resumedRuns += 1;
            } finally {
              client.close();
              await proxy.close();
            }
          },
        ),
        { numRuns: RUNS },
      );
      // Most cases really cut and resume (a plan past the last byte cuts nothing).
      expect(resumedRuns).toBeGreaterThan(RUNS / 2);
    } finally {
      await server.close();
    }
  });
  it('connectAcp dialling the draft on the RFD WebSocket: each answer once, no request run twice, nothing lost', async () => {
    const server = await serveAcp(sequenceApp, { port: 0, logger: silentLogger });
    let resumedRuns = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          socketPlans,
          fc.integer({ min: 20, max: 80 }),
          fc.integer({ min: 0, max: 3 }),
          async (cuts, count, ticks) => {
            const proxy = await startFaultProxy(server.port, cuts);
            const events: string[] = [];
            const remote = await connectAcp(`ws://127.0.0.1:${proxy.port}/acp`, {
              resumeWire: 'durable-resume',
              logger: silentLogger,
              onConnectionEvent: (event) => events.push(event.type),
            });
            const seen = (type: string) => events.filter((seenType) => seenType === type).length;
            try {
              const writer = remote.stream.writable.getWriter();
              const reader = remote.stream.readable.getReader();
              // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
              const next = async (): Promise<any> => {
                const { value, done } = await reader.read();
                if (done)
                  throw new Error(
                    `the stream ended: ${JSON.stringify(await remote.closed)} (${events.join(', ')})`,
                  );
                return value;
              };
              const cursors: unknown[] = [];
              // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
              const downstream: any[] = [];
              const take = async () => {
                const value = await next();
                const isCut = value.error?.data?.reason === 'cut_in_flight';
                const { message, cursor } = withoutCursor(value as Record<string, unknown>);
                // Every message from the server carries its cursor; only the client's own cut answers have none.
                if (!isCut) cursors.push(cursor);
                downstream.push(message);
                return message as { id?: unknown };
              };
              await writer.write({
                jsonrpc: '2.0',
                id: 'init',
                method: 'initialize',
                params: { protocolVersion: 1 },
              } as AnyMessage);
              expect((await take()).id).toBe('init');
              for (const seq of sequence(count))
                await writer.write({
                  jsonrpc: '2.0',
                  id: seq,
                  method: '_test/echo',
                  params: { seq, ticks },
                } as AnyMessage);
              const answered = new Set<number>();
              while (answered.size < count) {
                const message = await take();
                if (typeof message.id === 'number') {
                  expect(answered.has(message.id)).toBe(false);
                  answered.add(message.id);
                }
              }
              // What the agent received: asked until an answer comes (a query cut in flight is answered cut too).
              let received: number[] | undefined;
              for (let query = 1; received === undefined; query += 1) {
                await writer.write({
                  jsonrpc: '2.0',
                  id: `log-${query}`,
                  method: '_test/received',
                  params: {},
                } as AnyMessage);
                for (;;) {
                  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
                  const message = (await take()) as any;
                  if (message.id !== `log-${query}`) continue;
                  if (message.result !== undefined) received = message.result.received;
                  break;
                }
              }
              // No request ran twice; every one answered with its result ran.
              expect(new Set(received).size).toBe(received.length);
              const results = downstream.filter(
                (message) => typeof message.id === 'number' && message.result,
              );
              const cutAnswers = downstream.filter(
                (message) =>
                  typeof message.id === 'number' && message.error?.data?.reason === 'cut_in_flight',
              );
              expect(results.length + cutAnswers.length).toBe(count);
              for (const result of results) expect(received).toContain(result.result.seq);
              for (const cut of cutAnswers) expect(cut.error.code).toBe(RelayErrorCode.TransportLost);
              expect(results.map((result) => result.result.seq)).toEqual(
                [...results.map((result) => result.result.seq)].sort((a: number, b: number) => a - b),
              );
              // Every tick of every request the agent ran, exactly once and in order.
              const tickNumbers = downstream
                .filter((message) => message.method === '_test/tick')
                .map((message) => message.params.n);
              expect(tickNumbers).toEqual(
                Array.from({ length: ticks * received.length }, (_, index) => index + 1),
              );
              expect(cursors.every((cursor) => typeof cursor === 'string')).toBe(true);
              expect(new Set(cursors).size).toBe(cursors.length);
              expect(events).not.toContain('resume-failed');
              expect(seen('resumed')).toBe(seen('interrupted'));
              if (seen('resumed') > 0) resumedRuns += 1;
            } finally {
              await remote.close();
              await proxy.close();
            }
          },
        ),
        { numRuns: RUNS },
      );
      // Most cases really cut and resume (a plan past the last byte cuts nothing).
      expect(resumedRuns).toBeGreaterThan(RUNS / 2);
    } finally {
      await server.close();
    }
  });
});
