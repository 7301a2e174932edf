// Unit tests of the relay's message counting: the size histogram slots and the per-direction counter.
import { describe, expect, it } from 'vitest';
import { CountingMessageCounter, MESSAGE_SIZE_BUCKETS, sizeBucket } from './relay-metrics.js';

/** The definition sizeBucket computes with integer tricks: the first bound the size fits under. */
function bucketByDefinition(bytes: number): number {
  const index = MESSAGE_SIZE_BUCKETS.findIndex((bound) => bytes <= bound);
  return index === -1 ? MESSAGE_SIZE_BUCKETS.length : index;
}

describe('sizeBucket', () => {
  it('agrees with the bucket bounds at every bound, either side of it, and at 0', () => {
    const sizes = [0, 1, 2, 63];
    for (const bound of MESSAGE_SIZE_BUCKETS) sizes.push(bound - 1, bound, bound + 1);
    for (const bytes of sizes) {
      const expected = bucketByDefinition(bytes);
      // Past the last bound the slot only has to be beyond it (those count in +Inf alone).
      if (expected === MESSAGE_SIZE_BUCKETS.length)
        expect(sizeBucket(bytes)).toBeGreaterThanOrEqual(expected);
      else expect(sizeBucket(bytes), `${bytes} bytes`).toBe(expected);
    }
  });

  it('stays within the counter slots for any size below 4 GiB', () => {
    const counter = new CountingMessageCounter();
    expect(sizeBucket(2 ** 32 - 1)).toBeLessThan(counter.sizes.length);
  });
});

describe('CountingMessageCounter', () => {
  it('counts messages, UTF-8 bytes of strings and byte length of buffers, by size slot', () => {
    const counter = new CountingMessageCounter();
    counter.count(Buffer.alloc(64));
    counter.count('é'.repeat(40)); // 80 bytes
    counter.count(Buffer.alloc(5_000));
    expect(counter.messages).toBe(3);
    expect(counter.bytes).toBe(64 + 80 + 5_000);
    expect([...counter.sizes.slice(0, 5)]).toEqual([1, 1, 0, 0, 1]);
  });
});
