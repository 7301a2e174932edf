// Reading a Server-Sent Events stream (the client side of Streamable HTTP): events and comments, in linear time.
import { LineSplitter } from '../../wire/line-splitter.js';

const LINE_FEED = 0x0a;
const COLON = 0x3a;
const SPACE = 0x20;
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);
const DATA = Buffer.from('data');
const ID = Buffer.from('id');
const EVENT = Buffer.from('event');
/** Room for a field name, its colon and space on top of the event's data limit. */
const LINE_OVERHEAD_BYTES = 16;

/** One dispatched event: its data (the `data:` lines joined by `\n`) and the stream's last event id then. */
export interface SseEvent {
  readonly data: Buffer;
  /** The last `id:` seen on the stream up to this event (it carries over to later events, as in the standard). */
  readonly id: string | undefined;
  /** The event's `event:` name, when it had one (undefined: a `message`). */
  readonly type?: string | undefined;
  /** The event's own `id:` (its durable-resume cursor), when it had one: unlike `id`, never carried over. */
  readonly cursor?: string | undefined;
}

/** Callbacks of an {@link SseReader}. */
export interface SseReaderHandlers {
  event(event: SseEvent): void;
  /** A comment line (`:` and the text after it, one leading space removed). */
  comment?(text: string): void;
  /** An event's data grew past the limit: it is skipped up to the blank line that ends it. */
  oversize(maxEventBytes: number): void;
}

/**
 * Splits an SSE byte stream into events as the WHATWG standard reads them: lines end with CRLF, LF or CR; `data:`
 * lines accumulate (joined by `\n`), `id:` sets the last event id (ignored when it holds NUL), a blank line dispatches
 * an event that has data, `event:` names it, `:` lines are comments, `retry` is ignored. Each byte is scanned
 * once and a line's pieces are joined once (the package's one {@link LineSplitter}), so a 1 MiB event costs one pass; an event's data is bounded by
 * `maxEventBytes`. Hand-written because Node has no SSE reader, and `EventSource` can send no headers.
 *
 * @example
 * ```ts
 * const reader = new SseReader(16 << 20, { event: (e) => relay(e.data), oversize: () => {} });
 * response.on('data', (chunk) => reader.push(chunk));
 * ```
 */
export class SseReader {
  private readonly lines: LineSplitter;
  /** Bytes of a leading byte order mark matched so far; -1 once the stream's start is behind us. */
  private byteOrderMark = 0;
  private readonly data: Buffer[] = [];
  private dataBytes = 0;
  private discardingEvent = false;
  /** The last event id committed (at an event's blank line, as the standard's "last event ID string"). */
  private lastId: string | undefined;
  /** The standard's "last event ID buffer": set by an `id:` field, committed when its event ends. */
  private idBuffer: string | undefined;
  private eventType: string | undefined;
  private eventId: string | undefined;

  constructor(
    private readonly maxEventBytes: number,
    private readonly handlers: SseReaderHandlers,
    /** The id a reader of the same stream before this one ended with (a reconnect reads on from there). */
    lastEventId?: string,
  ) {
    this.lastId = lastEventId;
    this.idBuffer = lastEventId;
    this.lines = new LineSplitter(
      maxEventBytes + LINE_OVERHEAD_BYTES,
      { onLine: (line) => this.line(line), onOversize: () => this.skipEvent() },
      'sse',
    );
  }

  /**
   * The id of the last event that ended (`Last-Event-ID` for a reconnect), even of an id-only block; an event cut off
   * before its blank line does not count.
   */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (this.byteOrderMark >= 0 && start < chunk.length) {
      if (chunk[start] === BYTE_ORDER_MARK[this.byteOrderMark]) {
        start += 1;
        this.byteOrderMark = this.byteOrderMark === 2 ? -1 : this.byteOrderMark + 1;
        continue;
      }
      // Not a byte order mark after all: what matched of it is the start of the first line.
      this.lines.push(BYTE_ORDER_MARK.subarray(0, this.byteOrderMark));
      this.byteOrderMark = -1;
    }
    if (start < chunk.length) this.lines.push(start === 0 ? chunk : chunk.subarray(start));
  }

  /** The stream ended: a last line without its ending is read; an event without its blank line is dropped. */
  end(): void {
    this.lines.end();
  }

  private line(line: Buffer): void {
    if (line.length === 0) {
      this.dispatch();
      return;
    }
    const colon = line.indexOf(COLON);
    if (colon === 0) {
      const text = line.subarray(line[1] === SPACE ? 2 : 1);
      this.handlers.comment?.(text.toString('utf8'));
      return;
    }
    const name = colon === -1 ? line : line.subarray(0, colon);
    let value = colon === -1 ? line.subarray(line.length) : line.subarray(colon + 1);
    if (value[0] === SPACE) value = value.subarray(1);
    if (name.equals(DATA)) this.addData(value);
    else if (name.equals(ID) && !value.includes(0)) {
      this.idBuffer = value.toString('utf8');
      this.eventId = this.idBuffer;
    } else if (name.equals(EVENT)) this.eventType = value.toString('utf8');
  }

  private addData(value: Buffer): void {
    if (this.discardingEvent) return;
    const bytes = this.dataBytes + (this.data.length > 0 ? 1 : 0) + value.length;
    if (bytes > this.maxEventBytes) {
      this.skipEvent();
      return;
    }
    if (this.data.length > 0) this.data.push(LINE_FEED_BYTES);
    this.data.push(value);
    this.dataBytes = bytes;
  }

  private skipEvent(): void {
    if (this.discardingEvent) return;
    this.discardingEvent = true;
    this.data.length = 0;
    this.dataBytes = 0;
    this.handlers.oversize(this.maxEventBytes);
  }

  private dispatch(): void {
    // The event name holds for one event only, as in the standard.
    const type = this.eventType;
    const cursor = this.eventId;
    this.eventType = undefined;
    this.eventId = undefined;
    // The id counts once its event ended (a cut mid-event leaves the previous one): what a reconnect resumes from.
    this.lastId = this.idBuffer;
    if (this.discardingEvent) {
      this.discardingEvent = false;
      return;
    }
    if (this.data.length === 0) return;
    const data = this.data.length === 1 ? this.data[0]! : Buffer.concat(this.data, this.dataBytes);
    this.data.length = 0;
    this.dataBytes = 0;
    this.handlers.event({ data, id: this.lastId, type, cursor });
  }
}

const LINE_FEED_BYTES = Buffer.from([LINE_FEED]);
