import { describe, expect, it } from 'vitest';
import { reconnectBackoffMs } from './reconnect-backoff.js';

describe('reconnectBackoffMs', () => {
  it('tries at once, then doubles from 250 ms up to 5 s, with jitter between half and all of it', () => {
    expect(reconnectBackoffMs(1)).toBe(0);
    expect([2, 3, 4, 5, 6, 7, 8].map((attempt) => reconnectBackoffMs(attempt, () => 1))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
    expect(reconnectBackoffMs(3, () => 0)).toBe(250);
  });
});
