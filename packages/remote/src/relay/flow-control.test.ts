// Unit tests of the read gate.
import { describe, expect, it } from 'vitest';
import { PauseReason, ReadGate } from './flow-control.js';

describe('ReadGate', () => {
  it('pauses on the first reason and resumes only when every reason is gone', () => {
    const events: string[] = [];
    const gate = new ReadGate(
      () => events.push('pause'),
      () => events.push('resume'),
    );
    gate.onChange = (paused, reason) => events.push(`${paused ? 'paused' : 'resumed'}:${reason}`);
    gate.pause(PauseReason.TargetFull);
    gate.pause(PauseReason.OwnQueueFull);
    gate.pause(PauseReason.TargetFull);
    expect(gate.isPaused).toBe(true);
    gate.resume(PauseReason.TargetFull);
    expect(gate.isPaused).toBe(true);
    expect(gate.has(PauseReason.OwnQueueFull)).toBe(true);
    gate.resume(PauseReason.TargetFull);
    gate.resume(PauseReason.OwnQueueFull);
    expect(gate.isPaused).toBe(false);
    expect(events).toEqual([
      'pause',
      `paused:${PauseReason.TargetFull}`,
      'resume',
      `resumed:${PauseReason.OwnQueueFull}`,
    ]);
  });
});
