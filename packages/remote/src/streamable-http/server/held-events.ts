// The events one resumable stream holds, numbered from 1: those written and kept for a replay, then those not written
// yet. One mechanism for the SSE streams (Last-Event-ID) and the RFD WebSocket's cursor streams (stream/resume).
import type { EventRecord, RetentionBudget } from './sse-stream.js';

/**
 * Drops the consumed slots before `head` (a queue read from the front) once they are all of `items`, or at least
 * 1,024 and half of it, so a long-lived queue neither grows nor copies on every read. Returns the new head.
 */
export function compacted(items: unknown[], head: number): number {
  if (head === items.length) items.length = 0;
  else if (head >= 1024 && head * 2 >= items.length) items.splice(0, head);
  else return head;
  return 0;
}

/**
 * The held events of one stream, in order: written ones (kept in the connection's {@link RetentionBudget} until it
 * lets them go through {@link dropThrough}) before unwritten ones. The stream decides how an event is written; this
 * keeps the numbering, the position and the bytes still to write.
 */
export class HeldEvents {
  private readonly events: EventRecord[] = [];
  private head = 0;
  private nextSeq = 1;
  /** The seq of the last event written. */
  private sentThrough = 0;
  /** Bytes of the events not written yet. */
  private unsent = 0;

  constructor(private readonly retention: RetentionBudget) {}

  /** The seq of the last event written (0 before the first). */
  get lastSent(): number {
    return this.sentThrough;
  }

  /** The seq of the last event held or dropped (0 before the first). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Bytes of the events not written yet. */
  get unsentBytes(): number {
    return this.unsent;
  }

  /** The seq the next event gets (it is taken by {@link add}). */
  takeSeq(): number {
    return this.nextSeq++;
  }

  /** Holds `record` (numbered by {@link takeSeq}) as not written yet. */
  add(record: EventRecord): void {
    this.events.push(record);
    this.unsent += record.bytes;
  }

  /** The first event not written yet, if any. */
  nextUnsent(): EventRecord | undefined {
    return this.events[this.head + (this.sentThrough + 1 - this.firstHeldSeq())];
  }

  /** Records that `record` (the {@link nextUnsent} one) was written now. */
  markSent(record: EventRecord): void {
    this.sentThrough = record.seq;
    this.unsent -= record.bytes;
    record.sentAt = performance.now();
  }

  /**
   * Whether a reader that processed every event through `cursor` (0: none) can be sent what follows: `ahead` when that
   * event was never written, `expired` when events after it are no longer held.
   */
  check(cursor: number): 'ok' | 'ahead' | 'expired' {
    this.retention.evict(performance.now());
    if (cursor > this.sentThrough) return 'ahead';
    return cursor + 1 < this.firstHeldSeq() ? 'expired' : 'ok';
  }

  /**
   * Makes every written event after `seq` unwritten again (a reader that missed them); `beforeRelease` sees each one
   * before the budget lets it go.
   */
  rewindTo(seq: number, beforeRelease?: (record: EventRecord) => void): void {
    const first = this.firstHeldSeq();
    for (let index = this.head + Math.max(0, seq + 1 - first); index < this.events.length; index += 1) {
      const record = this.events[index]!;
      if (record.seq > this.sentThrough) break;
      beforeRelease?.(record);
      this.retention.release(record);
      this.unsent += record.bytes;
    }
    this.sentThrough = seq;
  }

  /** Forgets written events up to `seq` (the retention budget evicted them). */
  dropThrough(seq: number): void {
    const limit = Math.min(seq, this.sentThrough);
    while (this.head < this.events.length && this.events[this.head]!.seq <= limit) {
      this.events[this.head] = undefined as never;
      this.head += 1;
    }
    this.head = compacted(this.events, this.head);
  }

  /** Lets go of every event for good (the stream ended). */
  releaseAll(): void {
    for (let index = this.head; index < this.events.length; index += 1)
      this.retention.release(this.events[index]!);
    this.events.length = 0;
    this.head = 0;
    this.unsent = 0;
  }

  /** Seq of the first event held (written and kept, or unwritten); the next seq when none is. */
  private firstHeldSeq(): number {
    return this.head < this.events.length ? this.events[this.head]!.seq : this.nextSeq;
  }
}
