// Flow control: the water marks of every outbound queue and the ReadGate that pauses a source for a set of reasons.
import type { Readable, Writable } from 'node:stream';

/**
 * The relays' one pair of water marks, for every outbound queue (a socket's send buffer, a child's stdin, the
 * mirror's stdout): above the high-water mark the relay stops reading whatever feeds that queue, and it reads again
 * once the queue has been written out completely (the stream's 'drain'). 1 MiB keeps large messages flowing
 * without a pause per message while bounding what one connection holds.
 */
export const HIGH_WATER_BYTES = 1024 * 1024;

/** Why reading from a source is paused; reading resumes when no reason is left. */
export const PauseReason = {
  /** The queue this source's frames are relayed into is over the high-water mark. */
  TargetFull: 1,
  /** The source's own outbound queue is over the high-water mark: a peer that does not read gets no more work. */
  OwnQueueFull: 2,
} as const;
/** Union of the values of {@link PauseReason}. */
export type PauseReason = (typeof PauseReason)[keyof typeof PauseReason];

/**
 * Pauses and resumes one source for any number of reasons at once (a bit set), so two independent backpressure
 * signals never resume each other's pause.
 */
export class ReadGate {
  private reasons = 0;
  /** Told when reading stops (with the reason that stopped it) and when it starts again: flow-control debug logs. */
  onChange: ((paused: boolean, reason: PauseReason) => void) | undefined;
  constructor(
    private readonly pauseSource: () => void,
    private readonly resumeSource: () => void,
  ) {}

  get isPaused(): boolean {
    return this.reasons !== 0;
  }

  /** Whether reading is paused for `reason` (among others, maybe). */
  has(reason: PauseReason): boolean {
    return (this.reasons & reason) !== 0;
  }

  pause(reason: PauseReason): void {
    if ((this.reasons & reason) !== 0) return;
    const wasReading = this.reasons === 0;
    this.reasons |= reason;
    if (!wasReading) return;
    this.pauseSource();
    this.onChange?.(true, reason);
  }

  resume(reason: PauseReason): void {
    if ((this.reasons & reason) === 0) return;
    this.reasons &= ~reason;
    if (this.reasons !== 0) return;
    this.resumeSource();
    this.onChange?.(false, reason);
  }

  /** Forgets every reason without resuming (the source is gone). */
  clear(): void {
    this.reasons = 0;
  }
}

/** A read gate over a byte stream in flowing mode. */
export function streamReadGate(stream: Readable): ReadGate {
  return new ReadGate(
    () => stream.pause(),
    () => stream.resume(),
  );
}

/**
 * Calls `callback` once `stream` has written out everything queued (its 'drain'), or at once when nothing is
 * queued. `stream` must have been over its own high-water mark for 'drain' to come, which holds whenever the
 * relay's much larger high-water mark was crossed.
 */
export function whenDrained(stream: Writable, callback: () => void): void {
  if (stream.writableLength === 0) {
    queueMicrotask(callback);
    return;
  }
  stream.once('drain', callback);
}
