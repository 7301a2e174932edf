// One outbound SSE stream of a Streamable HTTP connection (its connection stream, or one session's): numbered
// events, one receiver at a time, flow control against the relays' high-water mark, replay after Last-Event-ID.
import type { Writable } from 'node:stream';
import { HIGH_WATER_BYTES } from '../../relay/flow-control.js';
import { tickCorker, WRITE_BATCH_BYTES } from '../../relay/write-batching.js';
import { type CursorSlot, cursorBytes, cursorText, packCursorSlot } from '../../wire/cursor-slot.js';
import { EventRing } from './event-ring.js';
import { compacted, type EventRecord, HeldEvents } from './held-events.js';

const EVENT_END = Buffer.from('\n\n');
/** {@link EventRecord.cursorAt} of a sent event whose payload is now its whole text, head and cursor included. */
const JOINED = -2;
/** Events up to this size are written as one chunk (joining costs less than framing three). */
const SINGLE_CHUNK_BYTES = 64 * 1024;

/**
 * What holding one sent event costs beyond its bytes (its record, the view of its payload, its slots in the stream's
 * and the budget's queues), counted by the {@link RetentionBudget} so the budget bounds memory, not payload: measured
 * at ~230 bytes on Node 20 (tests/reliability, `streamable-http-hostile.test.ts`), rounded up.
 */
export const EVENT_OVERHEAD_BYTES = 256;

/** `id: <seq>\ndata: `: an event's head, made when it is written (holding one per kept event would cost more). */
function headOf(seq: number): string {
  return `id: ${seq}\ndata: `;
}

/** How many decimal digits `seq` has, without making the string. */
function digitsOf(seq: number): number {
  let digits = 1;
  for (let rest = seq; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/** The length of {@link headOf}`(seq)`. */
function headBytes(seq: number): number {
  return 'id: \ndata: '.length + digitsOf(seq);
}

/**
 * Writes an event's whole text (head, payload with its cursor spliced into its `_meta` when it has a slot, blank
 * line) into `target`, `record.bytes` long: piece by piece, no intermediate buffers for the head and the cursor.
 */
function fillEvent(record: EventRecord, target: Buffer): void {
  const { payload, cursorAt } = record;
  let offset = target.write(headOf(record.seq), 0, 'latin1');
  if (typeof payload === 'string') offset += target.write(payload, offset, 'utf8');
  else if (cursorAt < 0) offset += payload.copy(target, offset);
  else {
    offset += payload.copy(target, offset, 0, cursorAt);
    offset += target.write(cursorText(record.cursorSlot, String(record.seq)), offset, 'latin1');
    offset += payload.copy(target, offset, cursorAt + Math.floor(record.cursorSlot / 8));
  }
  target[offset] = 0x0a;
  target[offset + 1] = 0x0a;
}

/** An event's text as one string or buffer, its cursor spliced into its `_meta` when it has a slot. */
function joinEvent(record: EventRecord): string | Buffer {
  const { payload, cursorAt } = record;
  if (cursorAt === JOINED) return payload;
  if (cursorAt < 0 && typeof payload === 'string') return `${headOf(record.seq)}${payload}\n\n`;
  const event = Buffer.allocUnsafe(record.bytes);
  fillEvent(record, event);
  return event;
}

/** Writes a large event as views of its payload (no copy of the payload itself). */
function writeLargeEvent(receiver: Writable, record: EventRecord): void {
  receiver.write(headOf(record.seq));
  const { payload, cursorAt } = record;
  if (cursorAt < 0) receiver.write(payload);
  else {
    const frame = payload as Buffer;
    receiver.write(frame.subarray(0, cursorAt));
    receiver.write(cursorText(record.cursorSlot, String(record.seq)));
    receiver.write(frame.subarray(cursorAt + Math.floor(record.cursorSlot / 8)));
  }
  receiver.write(EVENT_END);
}
const KEEP_ALIVE = ':\n\n';

/**
 * Ends a response the stream stops using with `text` (a closing comment), and makes sure its socket goes: a reader
 * that does not read would otherwise keep it open forever with the kernel's buffers full. With `flushMs` 0 (a
 * takeover) it is destroyed at once unless `text` went straight to the kernel; otherwise when it has not finished
 * within `flushMs`.
 */
function retire(receiver: Writable, text: string, flushMs: number): void {
  receiver.end(text);
  if (receiver.writableFinished || receiver.destroyed) return;
  if (flushMs === 0) {
    if (receiver.writableLength > 0) receiver.destroy();
    return;
  }
  const timer = setTimeout(() => receiver.destroy(), flushMs);
  timer.unref();
  receiver.once('close', () => clearTimeout(timer));
  receiver.once('finish', () => clearTimeout(timer));
}

/**
 * What a connection's streams share: how much memory the events already sent may take while they are kept, and for
 * how long, so a client that reconnects with `Last-Event-ID` gets what it missed. Each kept event counts its bytes
 * plus {@link EVENT_OVERHEAD_BYTES}, so the bound holds for tiny events as for large ones. Evicts the oldest sent
 * events, across the connection's streams, past either bound: past the window on a timer (no later event or reader
 * is needed to let them go). Queued (unsent) events are never evicted (flow control bounds them).
 */
export class RetentionBudget {
  private bytes = 0;
  /** The events counted, oldest first, each with the stamp it had when counted (stale ones are skipped). */
  private readonly records: EventRecord[] = [];
  private readonly stamps: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** The kept events' bytes (none while nothing can be kept). */
  private readonly ring: EventRing | undefined;

  /**
   * The kept events larger than every event kept after them, oldest first, with the stamp each had (a monotonic
   * queue; entries no longer kept are skipped): its first live one is the largest event kept.
   */
  private readonly largest: EventRecord[] = [];
  private readonly largestStamps: number[] = [];
  private largestHead = 0;

  constructor(
    /** At most this many bytes kept, overhead included (`resumeBufferBytes` plus one message); 0 keeps nothing. */
    readonly maxBytes: number,
    /** Events sent longer ago than this are not kept (`resumeWindowMs`); 0 keeps nothing. */
    readonly windowMs: number,
    /**
     * The part of `maxBytes` that is room for one message (`maxMessageBytes`): the limit is raised by the largest
     * event kept, up to that, so a flood of small events keeps `maxBytes - messageBytes` (issue 32 item 4) and a
     * large event is kept whole with what came before it.
     */
    readonly messageBytes = 0,
    /**
     * Whether a kept event's text is copied into one reused ring, so its own buffers die young (less garbage
     * collection, measured on Streamable HTTP). Only for SSE events: the ring holds an event's SSE text (head, payload,
     * blank line), which is not how an RFD WebSocket message is sent, so a WebSocket's budget keeps its messages as
     * they were written.
     */
    readonly copiesIntoRing = true,
  ) {
    // The ring holds what the budget keeps beyond the room for one message: a larger event keeps its own buffer.
    this.ring =
      copiesIntoRing && maxBytes > 0 && windowMs > 0 ? new EventRing(maxBytes - messageBytes) : undefined;
  }

  /** Bytes of sent events kept now, their overhead included. */
  get retainedBytes(): number {
    return this.bytes;
  }

  /**
   * @internal An event was sent on its stream: keep it while the bounds allow. Its whole text (`joined`, as written;
   * else made from its payload) replaces its payload, copied into the ring when there is room.
   */
  retain(record: EventRecord, joined?: Buffer | string): void {
    record.retained = true;
    record.retention += 1;
    const region = this.ring?.reserve(record.bytes, record, record.retention);
    if (region !== undefined) {
      // A large event was written as views of its payload: its text is put together here, in the ring.
      if (joined === undefined) fillEvent(record, region);
      else if (typeof joined === 'string') region.write(joined, 'utf8');
      else joined.copy(region);
      record.payload = region;
      record.cursorAt = JOINED;
    } else if (joined !== undefined) {
      record.payload = joined;
      record.cursorAt = JOINED;
    }
    this.bytes += record.bytes + EVENT_OVERHEAD_BYTES;
    this.records.push(record);
    this.stamps.push(record.retention);
    const { largest, largestStamps } = this;
    while (largest.length > this.largestHead) {
      const last = largest.length - 1;
      if (this.isKept(largest[last]!, largestStamps[last]!) && largest[last]!.bytes > record.bytes) break;
      largest.pop();
      largestStamps.pop();
    }
    largest.push(record);
    largestStamps.push(record.retention);
    this.evict(performance.now());
  }

  /** @internal `record` is no longer kept (replayed, so queued again; or its stream ended). */
  release(record: EventRecord): void {
    if (!record.retained) return;
    record.retained = false;
    this.bytes -= record.bytes + EVENT_OVERHEAD_BYTES;
  }

  /** Drops what is past the bounds at `now`, then sets the timer for the next event to age out. */
  evict(now: number): void {
    const oldestAllowed = now - this.windowMs;
    while (this.head < this.records.length) {
      const record = this.records[this.head]!;
      const live = this.isKept(record, this.stamps[this.head]!);
      if (live && this.bytes <= this.allowedBytes() && this.windowMs > 0 && record.sentAt >= oldestAllowed)
        break;
      this.records[this.head] = undefined as never;
      this.head += 1;
      if (live) {
        this.release(record);
        record.stream.dropThrough(record.seq);
      }
    }
    if (compacted(this.records, this.head) === 0 && this.head > 0) {
      this.stamps.splice(0, this.head);
      this.head = 0;
    }
    this.schedule(now);
  }

  /** Whether `record` is still kept under the stamp it had when it was counted. */
  private isKept(record: EventRecord, stamp: number): boolean {
    return record.retained && record.retention === stamp;
  }

  /** What may be kept now: the limit, raised by the largest event kept (up to one message). */
  private allowedBytes(): number {
    const { largest, largestStamps } = this;
    while (
      largest.length > this.largestHead &&
      !this.isKept(largest[this.largestHead]!, largestStamps[this.largestHead]!)
    ) {
      largest[this.largestHead] = undefined as never;
      this.largestHead += 1;
    }
    if (compacted(largest, this.largestHead) === 0 && this.largestHead > 0) {
      largestStamps.splice(0, this.largestHead);
      this.largestHead = 0;
    }
    const room =
      largest.length > this.largestHead ? largest[this.largestHead]!.bytes + EVENT_OVERHEAD_BYTES : 0;
    return this.maxBytes - this.messageBytes + Math.min(room, this.messageBytes);
  }

  /** Stops the timer for good (the connection ended). */
  dispose(): void {
    this.disposed = true;
    this.ring?.release();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Arms the timer for when the oldest kept event leaves the window (none armed while nothing is kept). */
  private schedule(now: number): void {
    if (this.timer !== undefined || this.disposed || this.head >= this.records.length) return;
    const dueInMs = this.records[this.head]!.sentAt + this.windowMs - now;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.evict(performance.now());
        // Events aged out: a connection that went quiet need not hold the ring its busiest moment needed.
        this.ring?.trim(this.bytes);
      },
      Math.max(0, Math.ceil(dueInMs)),
    );
    this.timer.unref();
  }
}

/** What a stream tells the connection that owns it. */
export interface SseStreamOwner {
  readonly retention: RetentionBudget;
  /** Keep-alive comment interval while a receiver is attached (ms). */
  readonly keepAliveMs: number;
  /** How long an ended response may take to hand its last bytes to the kernel before it is destroyed (ms). */
  readonly closeFlushMs: number;
  /** Bytes left the stream's queue or its receiver's buffer (the connection may have room again). */
  progressed(): void;
  /** A receiver attached or went away. */
  receiverChanged(stream: SseStream): void;
  /** The stream ended ({@link SseStream.end}, or {@link SseStream.finish} once everything was written). */
  streamEnded(stream: SseStream): void;
}

/** Why a reconnecting receiver cannot have exactly what it missed. */
export type ResumeGap = 'overflow' | 'ahead';

/**
 * One SSE stream: events numbered from 1 (`id: n`), queued while nobody reads them, written to one receiver (an HTTP
 * response) at a time, corked per event-loop turn, pausing while the receiver's buffer is over the high-water mark.
 * A second receiver takes over (the first one's response ends, and is destroyed at once when it cannot take the
 * closing comment): a client that reconnects is the one that reads. A response the stream ends is destroyed when it
 * has not flushed within the owner's `closeFlushMs`, so no reader keeps a socket by not reading. A
 * receiver that names the last event it got (`Last-Event-ID`) is sent every later one first, while the connection's
 * {@link RetentionBudget} still holds them.
 *
 * @example
 * ```ts
 * const stream = new SseStream('connection', owner);
 * stream.push('{"jsonrpc":"2.0","method":"session/update","params":{}}');
 * stream.attach(response, undefined); // writes `id: 1\ndata: {...}\n\n`
 * ```
 */
export class SseStream {
  /** The events sent and kept for Last-Event-ID, then the queued ones. */
  private readonly held: HeldEvents;
  private receiver: Writable | undefined;
  private cork: (bytes?: number) => void = () => {};
  private waitingForDrain = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private ended = false;
  /** Set by {@link finish}: the closing comment written once every queued event is. */
  private closingComment: string | undefined;

  constructor(
    /** `connection`, or the session id. */
    readonly key: string,
    private readonly owner: SseStreamOwner,
  ) {
    this.held = new HeldEvents(owner.retention);
  }

  /** Bytes of events not yet written to a receiver, plus what the receiver has not yet handed to the kernel. */
  get pendingBytes(): number {
    return this.held.unsentBytes + (this.receiver?.writableLength ?? 0);
  }

  get hasReceiver(): boolean {
    return this.receiver !== undefined;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The id of the last event pushed (0 before the first). */
  get lastId(): number {
    return this.held.lastSeq;
  }

  /**
   * Queues one event (a JSON-RPC message on one line) and writes it if a receiver can take it now. With `slot` (found
   * in `payload`, which must then be `slot.frame`), the event's id is also spliced into the message's `_meta` as
   * `acp/cursor` when it is written: the held payload stays the bytes received, so a replay is identical.
   */
  push(payload: Buffer | string, slot?: CursorSlot): void {
    if (this.ended || this.closingComment !== undefined) return;
    const seq = this.held.takeSeq();
    const payloadBytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    const cursorAt = slot === undefined ? -1 : slot.start;
    const cursorSlot = slot === undefined ? 0 : packCursorSlot(slot);
    const cursorExtra = slot === undefined ? 0 : cursorBytes(cursorSlot, digitsOf(seq));
    const bytes = headBytes(seq) + payloadBytes + EVENT_END.length + cursorExtra;
    this.held.add({
      seq,
      stream: this,
      payload,
      cursorAt,
      cursorSlot,
      bytes,
      sentAt: 0,
      retention: 0,
      retained: false,
    });
    this.flush();
  }

  /**
   * Makes `receiver` (an SSE response) the stream's reader. With `lastEventId`, the events after it are sent first;
   * `ahead` when that id was never sent, `overflow` when events after it are no longer held. `begin` runs once the
   * receiver is accepted, before anything is written to it (the endpoint sends the response's head there).
   */
  attach(
    receiver: Writable,
    lastEventId: number | undefined,
    begin?: () => void,
    /** Written first on a resume (`lastEventId` given): the turn-state advisory event, which has no id. */
    resumeAdvisory?: () => string | undefined,
  ): { ok: true } | { ok: false; gap: ResumeGap } {
    if (this.ended) return { ok: false, gap: 'overflow' };
    if (lastEventId !== undefined) {
      const verdict = this.held.check(lastEventId);
      if (verdict !== 'ok') return { ok: false, gap: verdict === 'ahead' ? 'ahead' : 'overflow' };
    }
    begin?.();
    const previous = this.receiver;
    if (previous !== undefined) {
      this.release(previous);
      retire(previous, ': replaced by a newer request for this stream\n\n', 0);
    }
    // Released, a rewound event's region in the ring may be reused before it is written again: it takes a copy.
    if (lastEventId !== undefined)
      this.held.rewindTo(lastEventId, (record) => {
        if (record.cursorAt === JOINED && typeof record.payload !== 'string')
          record.payload = Buffer.from(record.payload);
      });
    this.receiver = receiver;
    this.cork = tickCorker(receiver, WRITE_BATCH_BYTES);
    receiver.once('close', () => {
      if (this.receiver !== receiver) return;
      this.release(receiver);
      this.owner.receiverChanged(this);
      this.owner.progressed();
    });
    this.keepAlive = setInterval(() => {
      if (this.receiver === undefined || this.waitingForDrain) return;
      this.cork();
      this.receiver.write(KEEP_ALIVE);
    }, this.owner.keepAliveMs);
    this.keepAlive.unref();
    this.owner.receiverChanged(this);
    this.cork();
    if (lastEventId === undefined) {
      // The stream's position so far, as an id-only block (no data, so no event is dispatched): a client cut before
      // the first event reaches it still holds a cursor to resume from (as MCP's servers prime their streams).
      receiver.write(`id: ${this.held.lastSent}\n\n`);
    } else {
      const advisory = resumeAdvisory?.();
      if (advisory !== undefined) receiver.write(advisory);
    }
    this.flush();
    return { ok: true };
  }

  /**
   * Ends the stream once every queued event has been written (now, when none is queued): the receiver then gets the
   * closing comment and its response ends. A stream nobody reads waits for a receiver (or for {@link end}).
   */
  finish(comment: string): void {
    if (this.ended) return;
    this.closingComment = comment;
    if (this.held.unsentBytes === 0) this.end(comment);
  }

  /**
   * Ends the stream for good, now: the receiver (if any) gets a closing comment (`comment`, one line) and its response
   * ends; queued events are dropped and nothing is kept.
   */
  end(comment: string): void {
    if (this.ended) return;
    this.ended = true;
    const receiver = this.receiver;
    if (receiver !== undefined) {
      this.release(receiver);
      retire(receiver, `: ${comment.replace(/[\r\n]+/g, ' ')}\n\n`, this.owner.closeFlushMs);
    }
    this.held.releaseAll();
    this.owner.streamEnded(this);
  }

  /** @internal Forgets sent events up to `seq` (the retention budget evicted them). */
  dropThrough(seq: number): void {
    this.held.dropThrough(seq);
  }

  private release(receiver: Writable): void {
    if (this.receiver !== receiver) return;
    this.receiver = undefined;
    this.waitingForDrain = false;
    receiver.off('drain', this.onDrain);
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  private readonly onDrain = () => {
    this.waitingForDrain = false;
    this.owner.progressed();
    this.flush();
  };

  private flush(): void {
    const receiver = this.receiver;
    if (receiver === undefined || this.waitingForDrain) return;
    let wrote = false;
    // The budget may drop events before the next one as each is kept: the next is looked up again each time.
    for (
      let record = this.held.nextUnsent();
      record !== undefined && receiver.writableLength <= HIGH_WATER_BYTES;
      record = this.held.nextUnsent()
    ) {
      this.cork(record.bytes);
      // One chunk per event (a chunked response frames each write): small events are joined, a large payload is
      // written as it is rather than copied (a kept one is copied once, into the ring, by the budget).
      let joined: Buffer | string | undefined;
      if (record.bytes <= SINGLE_CHUNK_BYTES || record.cursorAt === JOINED) {
        joined = joinEvent(record);
        receiver.write(joined);
      } else writeLargeEvent(receiver, record);
      this.held.markSent(record);
      wrote = true;
      this.owner.retention.retain(record, joined);
    }
    if (receiver.writableLength > HIGH_WATER_BYTES) {
      this.waitingForDrain = true;
      receiver.once('drain', this.onDrain);
    }
    if (wrote) this.owner.progressed();
    if (this.closingComment !== undefined && this.held.unsentBytes === 0) this.end(this.closingComment);
  }
}
