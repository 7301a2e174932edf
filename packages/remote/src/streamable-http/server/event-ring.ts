// Where a connection keeps the bytes of the SSE events it sent, for Last-Event-ID: one ring of memory, reused.
import { compacted } from './held-events.js';

/** What the ring needs to know of a kept event: its size, and whether it is still kept under the stamp it had. */
export interface RingEvent {
  readonly bytes: number;
  readonly retained: boolean;
  readonly retention: number;
}

/** The first ring's size; it doubles when full, up to its limit. */
const FIRST_RING_BYTES = 64 * 1024;
/**
 * Smaller events keep the buffer they came in (Node's shared pool already packs those): copied in, each would cost
 * the ring's bookkeeping on top of the retention budget's 256 bytes of overhead per event, which a flood of tiny
 * events would push past what the budget counts.
 */
export const RING_EVENT_MIN_BYTES = 1024;

/**
 * The bytes of the events a connection keeps for `Last-Event-ID`, copied into one buffer reused as a ring, oldest
 * out. Why: kept events live until the retention budget evicts them, so each one's buffer was promoted out of V8's
 * young generation and freed only by a full collection; at 16 KiB an update, that garbage collection (its external
 * memory, swept on helper threads) cost more CPU than everything else the server does per update (streaming bench,
 * 2026-12-07). Copied into the ring, an event's own buffers die young, as the SDK's server's do. Holds at most
 * `limit` bytes (the budget's, so memory stays what the budget says; while it grows, a ring it outgrew stays until
 * the events in it go); an event that finds no room (the ring full of kept events, or larger than the limit) is not
 * copied: the caller keeps its own buffer, as before. Regions are
 * handed out in the order events are kept, which is the order the budget evicts them in, so the free room is the
 * gap between the newest region and the oldest one still kept; an event released out of order (a replayed or
 * ended stream's) leaves a hole until the regions before it go.
 */
export class EventRing {
  private ring: Buffer | undefined;
  /** The regions handed out, oldest first (from `head`): their event, its stamp then, and their start. */
  private readonly events: RingEvent[] = [];
  private readonly stamps: number[] = [];
  private readonly starts: number[] = [];
  private head = 0;

  constructor(
    /** At most this many bytes of ring (the budget's bound). */
    readonly limit: number,
  ) {}

  /**
   * A region of `bytes` in the ring for `owner`, kept under `stamp`, for the caller to write the event into at once;
   * undefined when the ring has no room for it (or it is smaller than {@link RING_EVENT_MIN_BYTES}).
   */
  reserve(bytes: number, owner: RingEvent, stamp: number): Buffer | undefined {
    if (bytes > this.limit || bytes < RING_EVENT_MIN_BYTES) return undefined;
    const start = this.place(bytes);
    if (start < 0) return undefined;
    this.events.push(owner);
    this.stamps.push(stamp);
    this.starts.push(start);
    return this.ring!.subarray(start, start + bytes);
  }

  /**
   * Lets a ring go that is over four times what is kept now (`keptBytes`): after a burst, a connection that keeps
   * little again does not hold the burst's ring (what was kept in it keeps it alive until it goes); the next event
   * starts a small one.
   */
  trim(keptBytes: number): void {
    if (this.ring !== undefined && this.ring.length > Math.max(FIRST_RING_BYTES, keptBytes * 4))
      this.release();
  }

  /** Lets the ring go (the connection ended): the next event starts a small one. */
  release(): void {
    this.ring = undefined;
    this.clear();
  }

  /** Where a region of `bytes` starts, growing the ring when full and under its limit; -1 when there is no room. */
  private place(bytes: number): number {
    this.dropGone();
    const ring = this.ring;
    if (ring !== undefined) {
      if (this.head === this.events.length) {
        this.clear();
        if (bytes <= ring.length) return 0;
      } else {
        const oldest = this.starts[this.head]!;
        const newest = this.events.length - 1;
        const newestEnd = this.starts[newest]! + this.events[newest]!.bytes;
        // Not wrapped: room after the newest region, else before the oldest one (the end's slack is left unused).
        if (newestEnd > oldest) {
          if (newestEnd + bytes <= ring.length) return newestEnd;
          if (bytes <= oldest) return 0;
        } else if (newestEnd + bytes <= oldest) return newestEnd;
      }
      if (ring.length >= this.limit) return -1;
    }
    // A larger ring: the kept events copied into the old one keep it alive until they go.
    let size = ring === undefined ? FIRST_RING_BYTES : ring.length * 2;
    while (size < bytes) size *= 2;
    this.ring = Buffer.allocUnsafeSlow(Math.min(size, this.limit));
    this.clear();
    return 0;
  }

  /** Forgets the oldest regions whose events are no longer kept. */
  private dropGone(): void {
    const { events, stamps } = this;
    while (this.head < events.length) {
      const event = events[this.head]!;
      if (event.retained && event.retention === stamps[this.head]) break;
      events[this.head] = undefined as never;
      this.head += 1;
    }
    // The parallel queues drop what the events' queue dropped (the same rule as every queue of the retention).
    if (compacted(events, this.head) === 0 && this.head > 0) {
      stamps.splice(0, this.head);
      this.starts.splice(0, this.head);
      this.head = 0;
    }
  }

  private clear(): void {
    this.events.length = 0;
    this.stamps.length = 0;
    this.starts.length = 0;
    this.head = 0;
  }
}
