// Unit tests of the write batching: one cork per tick, and the SSE streams' cap on a batch.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tickCorker, WRITE_BATCH_BYTES } from './write-batching.js';

/** A writable that records each flush to its sink as the sizes of the chunks it carried. */
function recordingStream(): { stream: Writable; flushes: number[][] } {
  const flushes: number[][] = [];
  const stream = new Writable({
    highWaterMark: 1024 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      flushes.push([chunk.length]);
      callback();
    },
    writev(chunks, callback) {
      flushes.push(chunks.map(({ chunk }) => (chunk as Buffer).length));
      callback();
    },
  });
  return { stream, flushes };
}

describe('tickCorker', () => {
  it('writes a tick’s writes as one batch, released on the next tick', async () => {
    const { stream, flushes } = recordingStream();
    const cork = tickCorker(stream);
    for (let index = 0; index < 5; index += 1) {
      cork(100);
      stream.write(Buffer.alloc(100));
    }
    expect(flushes).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(flushes).toEqual([[100, 100, 100, 100, 100]]);
  });

  it('with a cap, writes out a batch before it would pass the cap, without waiting for the tick', async () => {
    const { stream, flushes } = recordingStream();
    const cork = tickCorker(stream, WRITE_BATCH_BYTES);
    const event = WRITE_BATCH_BYTES / 4;
    // What an in-process agent does: every write in one chain of microtasks, which ends before any nextTick.
    for (let index = 0; index < 10; index += 1) {
      await Promise.resolve();
      cork(event);
      stream.write(Buffer.alloc(event));
    }
    expect(flushes).toEqual([
      [event, event, event, event],
      [event, event, event, event],
    ]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(flushes.at(-1)).toEqual([event, event]);
    expect(stream.writableCorked).toBe(0);
  });

  it('writes a single write larger than the cap at once, alone', async () => {
    const { stream, flushes } = recordingStream();
    const cork = tickCorker(stream, 1_000);
    cork(10);
    stream.write(Buffer.alloc(10));
    cork(5_000);
    stream.write(Buffer.alloc(5_000));
    expect(flushes).toEqual([[10]]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(flushes).toEqual([[10], [5_000]]);
    expect(stream.writableCorked).toBe(0);
  });
});
