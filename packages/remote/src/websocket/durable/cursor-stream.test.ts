// CursorStream: the RFD WebSocket's messages numbered, written with their cursor, kept within the retention bounds and
// replayed after a cursor exactly as first written.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_OVERHEAD_BYTES, RetentionBudget } from '../../streamable-http/server/sse-stream.js';
import { cursorNodesOf, readCursorSlot } from '../../wire/cursor-slot.js';
import { compileWatch, FrameScanner } from '../../wire/frame-scan.js';
import { CursorStream, type CursorStreamOut } from './cursor-stream.js';
import { DURABLE_SOCKET_WATCH } from './durable-socket.js';

// The port's watch: the slot needs `method` to tell a request's params from a response's result.
const watch = compileWatch(DURABLE_SOCKET_WATCH);
const scanner = new FrameScanner(watch);
const nodes = cursorNodesOf(watch)!;

/** A message's bytes and its cursor slot, as the relay's scan finds it. */
function framed(message: object) {
  const frame = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
  scanner.scan(frame);
  return { frame, slot: readCursorSlot(scanner, nodes) };
}

/** Records what a stream writes: whole messages, and fragmented ones joined. */
class Wire implements CursorStreamOut {
  readonly written: string[] = [];
  fragmented = 0;
  writeData(frame: Buffer | string): void {
    this.written.push(frame.toString());
  }
  writeFragments(parts: ReadonlyArray<Buffer | string>): void {
    this.fragmented += 1;
    this.written.push(parts.map((part) => part.toString()).join(''));
  }
}

const update = (n: number) => framed({ method: 'session/update', params: { sessionId: 's', n } });

afterEach(() => {
  vi.useRealTimers();
});

describe('CursorStream', () => {
  it('refuses a budget that copies kept events into its SSE ring (a rewound message could read a reused region)', () => {
    expect(() => new CursorStream(new RetentionBudget(1 << 20, 60_000))).toThrow(/copiesIntoRing false/);
  });

  it('writes each message with its number as _meta["acp/cursor"], the held bytes unchanged', () => {
    const stream = new CursorStream(new RetentionBudget(1 << 20, 60_000, 0, false));
    const wire = new Wire();
    const first = update(1);
    stream.push(first.frame, first.slot, wire);
    const answer = framed({ id: 3, result: { stopReason: 'end_turn' } });
    stream.push(answer.frame, answer.slot, wire);
    stream.push('{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}', undefined, wire);
    expect(wire.written.map((text) => JSON.parse(text))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'session/update',
        params: { _meta: { 'acp/cursor': '1' }, sessionId: 's', n: 1 },
      },
      { jsonrpc: '2.0', id: 3, result: { _meta: { 'acp/cursor': '2' }, stopReason: 'end_turn' } },
      // No params or result object: no cursor, but a place in the stream.
      { jsonrpc: '2.0', id: 4, error: { code: -1, message: 'no' } },
    ]);
    expect(first.frame.toString()).not.toContain('acp/cursor');
    expect(stream.lastSent).toBe(3);
  });

  it('replays after a cursor exactly as first written, then what waited unsent, in order', () => {
    const stream = new CursorStream(new RetentionBudget(1 << 20, 60_000, 0, false));
    const first = new Wire();
    for (let n = 1; n <= 4; n += 1) {
      const message = update(n);
      stream.push(message.frame, message.slot, first);
    }
    // No socket carries the connection: messages wait, unsent.
    for (let n = 5; n <= 6; n += 1) {
      const message = update(n);
      stream.push(message.frame, message.slot, undefined);
    }
    expect(stream.lastSent).toBe(4);
    expect(stream.check(5)).toBe('ahead');
    expect(stream.check(2)).toBe('ok');
    const second = new Wire();
    expect(stream.resume(2, second)).toBe(4);
    expect(second.written.slice(0, 2)).toEqual(first.written.slice(2));
    expect(second.written.map((text) => JSON.parse(text).params.n)).toEqual([3, 4, 5, 6]);
    expect(second.written.map((text) => JSON.parse(text).params._meta['acp/cursor'])).toEqual([
      '3',
      '4',
      '5',
      '6',
    ]);
    // A second resume from the same cursor replays the same bytes again.
    const third = new Wire();
    stream.resume(2, third);
    expect(third.written).toEqual(second.written);
  });

  it('keeps within the byte bound (overhead included): older cursors are expired, the newest still resume', () => {
    const message = update(1);
    const messageBytes = message.frame.length + '"_meta":{"acp/cursor":"1"},'.length;
    const stream = new CursorStream(
      new RetentionBudget(3 * (messageBytes + EVENT_OVERHEAD_BYTES), 60_000, 0, false),
    );
    const wire = new Wire();
    for (let n = 1; n <= 6; n += 1) {
      const next = update(n);
      stream.push(next.frame, next.slot, wire);
    }
    expect(stream.check(6)).toBe('ok');
    expect(stream.check(3)).toBe('ok');
    expect(stream.check(2)).toBe('expired');
    expect(stream.heldBytes).toBeLessThanOrEqual(3 * (messageBytes + EVENT_OVERHEAD_BYTES));
  });

  it('lets messages go once they were written longer ago than the window; unsent ones wait whatever their age', () => {
    vi.useFakeTimers();
    const stream = new CursorStream(new RetentionBudget(1 << 20, 1_000, 0, false));
    const wire = new Wire();
    const written = update(1);
    stream.push(written.frame, written.slot, wire);
    const waiting = update(2);
    stream.push(waiting.frame, waiting.slot, undefined);
    vi.advanceTimersByTime(1_500);
    expect(stream.check(0)).toBe('expired');
    expect(stream.check(1)).toBe('ok');
    const later = new Wire();
    stream.resume(1, later);
    expect(later.written.map((text) => JSON.parse(text).params.n)).toEqual([2]);
  });

  it('writes a large message as fragments around its cursor (no copy), the same bytes as one', () => {
    const stream = new CursorStream(new RetentionBudget(1 << 22, 60_000, 1 << 20, false));
    const wire = new Wire();
    const large = framed({ method: 'session/update', params: { text: 'y'.repeat(100_000) } });
    stream.push(large.frame, large.slot, wire);
    expect(wire.fragmented).toBe(1);
    expect(JSON.parse(wire.written[0]!).params._meta).toEqual({ 'acp/cursor': '1' });
  });

  it('is full while what waits unsent passes the high-water mark; nothing is kept once ended', () => {
    const stream = new CursorStream(new RetentionBudget(1 << 24, 60_000, 0, false));
    const big = framed({ method: 'session/update', params: { text: 'z'.repeat(600 * 1024) } });
    stream.push(big.frame, big.slot, undefined);
    expect(stream.isFull).toBe(false);
    stream.push(big.frame, big.slot, undefined);
    expect(stream.isFull).toBe(true);
    stream.end();
    expect(stream.heldBytes).toBe(0);
    expect(stream.check(0)).toBe('expired');
  });
});
