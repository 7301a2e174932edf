// The events one resumable stream holds, numbered from 1: those written and kept for a replay, then those not written
// yet. One mechanism for the SSE streams (Last-Event-ID) and the RFD WebSocket's cursor streams (stream/resume).

/** What holds the events a retention budget counts: told when the budget lets them go, oldest first. */
export interface RetainingStream {
  /** Forgets sent events up to `seq` (the budget evicted them). */
  dropThrough(seq: number): void;
}

/**
 * One event as its stream holds it until it is sent, and after, while it may be replayed (an SSE event, or a
 * message of an RFD WebSocket that resumes).
 */
export interface EventRecord {
  readonly seq: number;
  /** The stream that holds it. */
  readonly stream: RetainingStream;
  /**
   * What follows the event's head (`id: <seq>\ndata: `); a blank line follows it. Once an event written whole (up to
   * `SINGLE_CHUNK_BYTES` (sse-stream.ts)) is kept, its whole text instead (`JOINED`), in the budget's ring when it fits.
   */
  payload: Buffer | string;
  /**
   * Where the event's cursor (its seq) goes in `payload` (a Buffer then), -1 (the `id:` line only) or
   * `JOINED`, and the rest of its slot packed (`packCursorSlot`): two numbers, not an object, so a kept
   * event costs no more.
   */
  cursorAt: number;
  readonly cursorSlot: number;
  /** The event's bytes on the wire (SSE: head, payload, blank line; WebSocket: the message with its cursor). */
  readonly bytes: number;
  /** When it was written to a receiver (ms, `performance.now()`); 0 while queued. */
  sentAt: number;
  /** Increments each time the event is (re)counted by the retention budget; stale budget entries are skipped. */
  retention: number;
  retained: boolean;
}

/** What the held events tell the connection's retention budget (`RetentionBudget`, sse-stream.ts). */
export interface EventRetention {
  /** Lets go of what is past the budget's bounds at `now` (ms, `performance.now()`). */
  evict(now: number): void;
  /** No longer counts `record` (forgotten by its stream). */
  release(record: EventRecord): void;
}

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
 * The held events of one stream, in order: written ones (kept in the connection's retention budget until it
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

  constructor(private readonly retention: EventRetention) {}

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
