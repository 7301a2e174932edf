import { describe, expect, it } from 'vitest';
import { EventRing, type RingEvent } from './event-ring.js';

/** A kept event as the retention budget marks one: kept under stamp 1 until `drop`. */
function kept(bytes = 16 * 1024): RingEvent & { retention: number; drop(): void } {
  const event = {
    bytes,
    retained: true,
    retention: 1,
    drop() {
      event.retained = false;
    },
  };
  return event;
}

const bytesOf = (size: number, fill: string) => Buffer.alloc(size, fill);

/** Copies `event` into the ring as the retention budget does: a region reserved, then written. */
function keep(ring: EventRing, event: Buffer | string, bytes: number, owner: RingEvent, stamp: number) {
  const region = ring.reserve(bytes, owner, stamp);
  if (typeof event === 'string') region?.write(event, 'utf8');
  else if (region !== undefined) event.copy(region);
  return region;
}

describe('EventRing', () => {
  it('copies events in, and reuses the room of the oldest once they are no longer kept', () => {
    const ring = new EventRing(64 * 1024);
    const events = Array.from({ length: 4 }, kept);
    const copies = events.map((event, index) =>
      keep(ring, bytesOf(16 * 1024, String(index)), 16 * 1024, event, 1),
    );
    expect(copies.map((copy) => copy?.toString('latin1', 0, 1))).toEqual(['0', '1', '2', '3']);
    // Full, at its limit: no room until the oldest goes.
    expect(keep(ring, bytesOf(2048, 'x'), 2048, kept(2048), 1)).toBeUndefined();
    events[0]!.drop();
    const wrapped = keep(ring, bytesOf(16 * 1024, 'w'), 16 * 1024, kept(), 1);
    expect(wrapped?.buffer).toBe(copies[0]!.buffer);
    expect(wrapped?.byteOffset).toBe(copies[0]!.byteOffset);
    // The kept ones are untouched.
    expect(copies.slice(1).map((copy) => copy?.toString('latin1', 0, 1))).toEqual(['1', '2', '3']);
  });

  it('does not reuse a region whose event is released out of order until the ones before it go', () => {
    const ring = new EventRing(48 * 1024);
    const [first, second, third] = [kept(), kept(), kept()];
    keep(ring, bytesOf(16 * 1024, 'a'), 16 * 1024, first, 1);
    const middle = keep(ring, bytesOf(16 * 1024, 'b'), 16 * 1024, second, 1);
    keep(ring, bytesOf(16 * 1024, 'c'), 16 * 1024, third, 1);
    second.drop();
    expect(keep(ring, bytesOf(1024, 'd'), 1024, kept(1024), 1)).toBeUndefined();
    expect(middle?.toString('latin1', 0, 1)).toBe('b');
    first.drop();
    expect(keep(ring, bytesOf(32 * 1024, 'e'), 32 * 1024, kept(32 * 1024), 1)?.byteOffset).toBe(0);
  });

  it('treats an event kept again (a new stamp) as a new region, its old one gone', () => {
    const ring = new EventRing(32 * 1024);
    const event = kept();
    keep(ring, bytesOf(16 * 1024, 'a'), 16 * 1024, event, 1);
    keep(ring, bytesOf(16 * 1024, 'b'), 16 * 1024, kept(), 1);
    event.retention = 2;
    // The first region's stamp no longer matches: its room is free again.
    expect(keep(ring, bytesOf(16 * 1024, 'c'), 16 * 1024, event, 2)?.byteOffset).toBe(0);
  });

  it('grows up to its limit, encodes strings, and refuses what is larger than the limit or small', () => {
    const ring = new EventRing(1024 * 1024);
    const text = keep(ring, 'é'.repeat(600), 1200, kept(1200), 1);
    expect(text?.toString('utf8')).toBe('é'.repeat(600));
    // Tiny events stay in the buffer they came in (Node's pool).
    expect(keep(ring, bytesOf(100, 's'), 100, kept(100), 1)).toBeUndefined();
    const big = keep(ring, bytesOf(200 * 1024, 'g'), 200 * 1024, kept(200 * 1024), 1);
    expect(big?.length).toBe(200 * 1024);
    expect(big?.buffer.byteLength).toBeLessThanOrEqual(1024 * 1024);
    expect(
      keep(ring, bytesOf(2 * 1024 * 1024, 'h'), 2 * 1024 * 1024, kept(2 * 1024 * 1024), 1),
    ).toBeUndefined();
  });

  it('lets a ring far larger than what is kept go, and the kept copies stay intact', () => {
    const ring = new EventRing(1024 * 1024);
    const events = Array.from({ length: 40 }, kept);
    const copies = events.map((event) => keep(ring, bytesOf(16 * 1024, 'k'), 16 * 1024, event, 1));
    // Doubled from 64 KiB as it filled: the last copies are in a 512 KiB ring.
    expect(copies[39]!.buffer.byteLength).toBe(512 * 1024);
    for (const event of events.slice(0, 39)) event.drop();
    ring.trim(16 * 1024);
    // A new, small ring for what comes next; the last kept copy still reads right.
    expect(keep(ring, bytesOf(2048, 'n'), 2048, kept(2048), 1)?.buffer.byteLength).toBe(64 * 1024);
    expect(copies[39]!.toString('latin1')).toBe('k'.repeat(16 * 1024));
    ring.trim(1024 * 1024);
    expect(keep(ring, bytesOf(2048, 'm'), 2048, kept(2048), 1)?.buffer.byteLength).toBe(64 * 1024);
  });
});
