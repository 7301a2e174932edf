// Unit and property tests of the replay buffer: numbering, acknowledgement, the bound and eviction.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from './replay-buffer.js';

const frame = (n: number, size = 10) => Buffer.from(String(n).padStart(size, '0'));

describe('ReplayBuffer', () => {
  it('numbers frames implicitly and replays those after what the peer received', () => {
    const replay = new ReplayBuffer(1024);
    for (let n = 1; n <= 5; n += 1) replay.record(frame(n));
    expect(replay.sent).toBe(5);
    expect(replay.canReplayAfter(2)).toBe(true);
    expect(replay.framesAfter(2).map(String)).toEqual([frame(3), frame(4), frame(5)].map(String));
    expect(replay.framesAfter(5)).toEqual([]);
    expect(replay.canReplayAfter(6)).toBe(false);
  });

  it('drops what the peer acknowledged and counts bytes of strings as UTF-8', () => {
    const replay = new ReplayBuffer(1024);
    replay.record('é'); // two bytes
    replay.record(frame(2));
    expect(replay.bytes).toBe(12);
    expect(replay.acknowledge(1)).toBe(true);
    expect(replay.bytes).toBe(10);
    expect(replay.heldFrames).toBe(1);
    // Going backwards is ignored; beyond what was sent is a violation.
    expect(replay.acknowledge(0)).toBe(true);
    expect(replay.heldFrames).toBe(1);
    expect(replay.acknowledge(3)).toBe(false);
    expect(replay.canReplayAfter(0)).toBe(false);
    expect(replay.canReplayAfter(1)).toBe(true);
  });

  it('says it is full before its bound (headroom for what is already read) and stays within the bound by dropping the oldest', () => {
    const replay = new ReplayBuffer(100);
    for (let n = 1; n <= 7; n += 1) replay.record(frame(n));
    // 100 bytes, a quarter of it as headroom: full from 75 bytes on.
    expect(replay.isFull).toBe(false);
    replay.record(frame(8));
    expect(replay.isFull).toBe(true);
    expect(replay.overflowed).toBe(false);
    for (let n = 9; n <= 12; n += 1) replay.record(frame(n));
    expect(replay.bytes).toBe(100);
    expect(replay.overflowed).toBe(true);
    // Frames 1 and 2 are gone: a peer that received only one cannot be resumed, one that received two can.
    expect(replay.canReplayAfter(1)).toBe(false);
    expect(replay.canReplayAfter(2)).toBe(true);
    // Once the peer acknowledges past the gap, the buffer is whole again.
    replay.acknowledge(4);
    expect(replay.overflowed).toBe(false);
  });

  it('is raised to fit one message: a frame larger than the limit is held whole, and the limit is kept after it', () => {
    const replay = new ReplayBuffer(100, 40);
    let overflows = 0;
    replay.onOverflow = () => {
      overflows += 1;
    };
    for (let n = 1; n <= 9; n += 1) replay.record(frame(n));
    replay.record(frame(10, 40));
    // 90 + 40 bytes: over the limit, within the limit plus one message.
    expect(replay.bytes).toBe(130);
    expect(replay.canReplayAfter(0)).toBe(true);
    expect(overflows).toBe(0);
    // One more frame passes the bound: the oldest go, the drop is told once for the whole stretch.
    replay.record(frame(11));
    replay.record(frame(12));
    expect(replay.bytes).toBeLessThanOrEqual(140);
    expect(replay.overflowed).toBe(true);
    expect(overflows).toBe(1);
    // Acknowledged past the gap, whole again; the next drop is a new stretch.
    replay.acknowledge(12);
    expect(replay.overflowed).toBe(false);
    for (let n = 13; n <= 28; n += 1) replay.record(frame(n));
    expect(overflows).toBe(2);
  });

  it('holds its limit under a flood of small frames, not the limit plus one message (issue 32 item 4)', () => {
    const replay = new ReplayBuffer(100, 1_000, 6);
    for (let n = 1; n <= 50; n += 1) replay.record(frame(n));
    // Each frame counts 10 bytes plus 6 of overhead: at most the limit plus the newest frame.
    expect(replay.bytes).toBeLessThanOrEqual(100 + 16);
    // A large frame is held whole with what came before it, and with small frames after it (its answer) while it is
    // held; once it is the oldest to go, the small ones keep to the limit again.
    replay.record(frame(51, 500));
    expect(replay.bytes).toBeGreaterThan(500);
    expect(replay.canReplayAfter(45)).toBe(true);
    replay.record(frame(52));
    expect(replay.canReplayAfter(50)).toBe(true);
    for (let n = 53; n <= 70; n += 1) replay.record(frame(n));
    expect(replay.canReplayAfter(50)).toBe(false);
    expect(replay.bytes).toBeLessThanOrEqual(100 + 16);
  });

  it('holds nothing of a frame larger than its bound', () => {
    const replay = new ReplayBuffer(16);
    replay.record(frame(1, 40));
    expect(replay.bytes).toBe(0);
    expect(replay.sent).toBe(1);
    expect(replay.canReplayAfter(0)).toBe(false);
    expect(replay.canReplayAfter(1)).toBe(true);
  });

  it('matches a model of the frames sent and acknowledged, through compactions', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 4000 }),
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('send' as const), size: fc.integer({ min: 1, max: 200 }) }),
            fc.record({ kind: fc.constant('ack' as const), ahead: fc.integer({ min: 0, max: 1500 }) }),
          ),
          { maxLength: 3000 },
        ),
        (limit, steps) => {
          const replay = new ReplayBuffer(limit);
          const sizes: number[] = [];
          let acknowledged = 0;
          for (const step of steps) {
            if (step.kind === 'send') {
              sizes.push(step.size);
              replay.record(Buffer.alloc(step.size, sizes.length % 256));
            } else {
              acknowledged = Math.min(sizes.length, acknowledged + step.ahead);
              replay.acknowledge(acknowledged);
            }
            // The bound holds, and what is held is the newest unacknowledged frames, in order.
            expect(replay.bytes).toBeLessThanOrEqual(limit);
            const held = replay.heldFrames;
            const firstHeld = sizes.length - held + 1;
            expect(firstHeld).toBeGreaterThan(acknowledged);
            expect(replay.bytes).toBe(sizes.slice(firstHeld - 1).reduce((sum, size) => sum + size, 0));
            expect(replay.canReplayAfter(firstHeld - 1)).toBe(true);
            if (firstHeld > 1) expect(replay.canReplayAfter(firstHeld - 2)).toBe(false);
            const frames = replay.framesAfter(firstHeld - 1) as Buffer[];
            expect(frames.map((bytes) => bytes[0])).toEqual(
              sizes.slice(firstHeld - 1).map((_size, index) => (firstHeld + index) % 256),
            );
          }
        },
      ),
      { numRuns: Number(process.env.ACPKIT_PROPERTY_RUNS ?? 200) },
    );
  });

  it('counts each frame with the overhead it is given, so the bound holds for tiny frames (issue 32 item 4)', () => {
    const replay = new ReplayBuffer(1_000, 0, 100);
    for (let index = 0; index < 20; index += 1) replay.record('x');
    expect(replay.bytes).toBeLessThanOrEqual(1_000);
    expect(replay.heldFrames).toBe(9);
    expect(replay.bytes).toBe(9 * 101);
  });
});
