// The cursors a client has processed on one stream, so a message a server sends again (at-least-once delivery) is
// handed to the application once.

/** How many of a stream's latest cursors are remembered. */
export const DEDUPE_CURSORS = 1024;

/**
 * The last {@link DEDUPE_CURSORS} cursors processed on one stream, compared as opaque strings (the durable-resume
 * draft forbids parsing them). A server replays from after the client's `Last-Event-ID`, identically; a message it
 * sends again anyway (at-least-once) carries a cursor seen here and is dropped. Bounded: a ring of strings.
 *
 * @example
 * ```ts
 * if (!dedupe.firstTime(event.id)) return; // already handed on
 * ```
 */
export class CursorDedupe {
  private readonly ring: (string | undefined)[] = new Array(DEDUPE_CURSORS);
  private readonly seen = new Set<string>();
  private next = 0;
  /** Messages dropped as repeats. */
  repeats = 0;

  /** Whether `cursor` is new on this stream (then it is remembered); false for a repeat. */
  firstTime(cursor: string): boolean {
    if (this.seen.has(cursor)) {
      this.repeats += 1;
      return false;
    }
    const evicted = this.ring[this.next];
    if (evicted !== undefined) this.seen.delete(evicted);
    this.ring[this.next] = cursor;
    this.next = (this.next + 1) % DEDUPE_CURSORS;
    this.seen.add(cursor);
    return true;
  }
}
