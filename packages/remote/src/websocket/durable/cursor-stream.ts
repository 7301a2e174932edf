// The messages of one RFD WebSocket connection as the durable-resume draft numbers them: each with its cursor spliced
// into `_meta["acp/cursor"]`, kept in the connection's RetentionBudget once written, replayable after a cursor.
import { HIGH_WATER_BYTES } from '../../relay/flow-control.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../../shared/errors.js';
import {
  type EventRecord,
  HeldEvents,
  type RetainingStream,
} from '../../streamable-http/server/held-events.js';
import type { RetentionBudget } from '../../streamable-http/server/sse-stream.js';
import { type CursorSlot, cursorBytes, cursorText, packCursorSlot } from '../../wire/cursor-slot.js';

/** Messages up to this size are written as one buffer with their cursor; larger ones as fragments (no copy). */
const SINGLE_FRAME_BYTES = 64 * 1024;

/** Where a stream writes its messages: the attached socket of its port. */
export interface CursorStreamOut {
  writeData(frame: Buffer | string): void;
  writeFragments(parts: ReadonlyArray<Buffer | string>): void;
}

/** Whether a peer that processed everything through a cursor can be sent what follows it. */
export type CursorCheck = 'ok' | 'ahead' | 'expired';

/** How many decimal digits `seq` has, without making the string. */
function digitsOf(seq: number): number {
  let digits = 1;
  for (let rest = seq; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/** Writes one message: its payload with the cursor (its seq) spliced in at its slot, when it has one. */
function writeRecord(out: CursorStreamOut, record: EventRecord): void {
  const { payload, cursorAt } = record;
  if (cursorAt < 0) {
    out.writeData(payload);
    return;
  }
  const frame = payload as Buffer;
  const cursor = cursorText(record.cursorSlot, String(record.seq));
  const rest = cursorAt + Math.floor(record.cursorSlot / 8);
  if (record.bytes > SINGLE_FRAME_BYTES) {
    out.writeFragments([frame.subarray(0, cursorAt), cursor, frame.subarray(rest)]);
    return;
  }
  // One buffer of the message's size, written piece by piece: no intermediate buffer for the cursor.
  const message = Buffer.allocUnsafe(record.bytes);
  let offset = frame.copy(message, 0, 0, cursorAt);
  offset += message.write(cursor, offset, 'latin1');
  frame.copy(message, offset, rest);
  out.writeData(message);
}

/**
 * The server→client messages of one RFD WebSocket connection, numbered from 1: a message's number is its cursor,
 * spliced into its `params._meta` / `result._meta` as `acp/cursor` when it is written (the held payload stays the
 * bytes sent by the agent, so a replay is identical, cursor included). Messages pushed while no socket carries them
 * wait, unsent (never evicted; {@link isFull} tells what feeds the port to wait); written ones are kept in the
 * connection's {@link RetentionBudget} (the Streamable HTTP streams' own, with the same bounds), so a peer that
 * resumes after a cursor gets every later message again, in order. The WebSocket twin of `SseStream`.
 *
 * @example
 * ```ts
 * const stream = new CursorStream(new RetentionBudget(32 << 20, 60_000, 16 << 20, false));
 * stream.push(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{}}'), slot, port); // written with cursor "1"
 * stream.check(0); // 'ok': a peer that processed nothing can have it again
 * ```
 */
export class CursorStream implements RetainingStream {
  /** The messages written and kept for a resume, then the unwritten ones. */
  private readonly held: HeldEvents;
  private ended = false;

  constructor(private readonly retention: RetentionBudget) {
    // The budget's ring holds SSE text and may reuse a released region before a rewound message is written again.
    if (retention.copiesIntoRing)
      throw new AcpRemoteError(
        AcpRemoteErrorCode.InternalError,
        'a CursorStream keeps WebSocket messages as written: give it a RetentionBudget with copiesIntoRing false',
      );
    this.held = new HeldEvents(retention);
  }

  /** Bytes held for the peer: kept after they were written (overhead included), and waiting to be written. */
  get heldBytes(): number {
    return this.retention.retainedBytes + this.held.unsentBytes;
  }

  /** Whether what feeds the stream should wait while no socket carries it (its unsent messages fill a queue). */
  get isFull(): boolean {
    return this.held.unsentBytes > HIGH_WATER_BYTES;
  }

  /** The cursor of the last message written (0 before the first). */
  get lastSent(): number {
    return this.held.lastSent;
  }

  /**
   * Numbers one message (`payload`, whose cursor slot `slot` was found in these very bytes) and writes it to `out`,
   * or keeps it unsent when `out` is undefined (no socket carries the connection now).
   */
  push(payload: Buffer | string, slot: CursorSlot | undefined, out: CursorStreamOut | undefined): void {
    if (this.ended) return;
    const seq = this.held.takeSeq();
    const payloadBytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    const cursorSlot = slot === undefined ? 0 : packCursorSlot(slot);
    const record: EventRecord = {
      seq,
      stream: this,
      payload,
      cursorAt: slot === undefined ? -1 : slot.start,
      cursorSlot,
      bytes: payloadBytes + (slot === undefined ? 0 : cursorBytes(cursorSlot, digitsOf(seq))),
      sentAt: 0,
      retention: 0,
      retained: false,
    };
    this.held.add(record);
    // Only in order: a message waits behind every unsent one.
    if (out !== undefined && this.held.lastSent === seq - 1) this.write(out, record);
  }

  /**
   * Whether a peer that processed every message through `cursor` (0: none) can be sent what follows: `ahead` when
   * that cursor was never written, `expired` when messages after it are no longer kept.
   */
  check(cursor: number): CursorCheck {
    if (this.ended) return 'expired';
    return this.held.check(cursor);
  }

  /**
   * Writes every message after `cursor` (checked `ok` by {@link check}) to `out`, in order, as first written, then
   * the ones that waited unsent. Returns how many were written.
   */
  resume(cursor: number, out: CursorStreamOut): number {
    this.held.rewindTo(cursor);
    let written = 0;
    // The budget may drop messages before the next one as each is kept: the next is looked up again each time.
    for (let record = this.held.nextUnsent(); record !== undefined; record = this.held.nextUnsent()) {
      this.write(out, record);
      written += 1;
    }
    return written;
  }

  /** @internal Forgets written messages up to `seq` (the retention budget evicted them). */
  dropThrough(seq: number): void {
    this.held.dropThrough(seq);
  }

  /** Lets go of every message for good (the connection ended). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.held.releaseAll();
    this.retention.dispose();
  }

  private write(out: CursorStreamOut, record: EventRecord): void {
    writeRecord(out, record);
    this.held.markSent(record);
    this.retention.retain(record);
  }
}
