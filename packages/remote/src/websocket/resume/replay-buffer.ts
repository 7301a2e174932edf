// The replay buffer of one side of a resumable session: sent frames kept until acknowledged, within a byte bound.
/** Bytes a frame holds in a replay buffer: its UTF-8 length. */
function frameBytes(payload: Buffer | string): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
}

/**
 * What holding one frame costs beyond its bytes: the Buffer view or string object and its two array slots. A small
 * frame relayed from an agent's stdout (a view of the chunk it was read in) costs ~110 bytes more than its length on
 * Node 20 (tests/reliability, `replay-buffer-memory.test.ts`); rounded up, so the bound counts memory, not payload.
 */
export const FRAME_OVERHEAD_BYTES = 128;

/**
 * While a frame this large is held, the whole room for one message is open (the limit plus `messageBytes`, as it
 * always was): acknowledgements come per MiB received, so a cut can find several large messages in flight, and the
 * exactly-once property with messages larger than the buffer (tests/reliability, `resume-large-messages`) needs them
 * all. Smaller frames raise the limit by the largest of them only, so a flood of small frames keeps to the limit.
 */
const LARGE_FRAME_BYTES = 64 * 1024;

/** Compact the frame array once this many acknowledged slots lead it (and they are at least half of it). */
const COMPACT_AFTER = 1024;

/**
 * The data frames one side sent on a resumable session that the other side has not acknowledged, in order, so they
 * can be sent again on the next connection. Frames are numbered implicitly: the n-th frame sent on the session is
 * number n. A bounded history, never a reason to stop sending: it holds up to `limitBytes`, raised to fit one more
 * message of up to `messageBytes` (so one large message never costs a session its resume): that room is open while a
 * large frame (64 KiB or more) is held; otherwise the limit is raised only by the largest frame held, so a flood of
 * small frames holds `limitBytes` (plus one small frame), not `limitBytes + messageBytes`. Each frame counts its bytes plus `frameOverheadBytes` (what holding it costs: the
 * bound is memory, not payload). Past that bound the oldest frames are dropped: a peer that has not received them can no longer be resumed ({@link canReplayAfter}
 * says so) until it acknowledges past them. {@link isFull} is for the time no socket carries the frames (a detached
 * or resuming session): then nothing drains the buffer but the next connection, and what feeds it must wait.
 *
 * @example
 * ```ts
 * const replay = new ReplayBuffer(16 * 1024 * 1024, 16 * 1024 * 1024);
 * replay.record(Buffer.from('{"jsonrpc":"2.0","method":"x"}'));
 * replay.acknowledge(1); // the peer has received frame 1: it is dropped
 * ```
 */
export class ReplayBuffer {
  /** Frames sent on the session so far: the number of the last one. */
  sent = 0;
  /** Bytes held. */
  bytes = 0;
  /** Frames acknowledged by the peer so far. */
  acknowledged = 0;
  /** The most bytes this buffer ever holds: `limitBytes` plus one message. */
  readonly boundBytes: number;
  /** Told once each time frames the peer has not acknowledged are dropped after a stretch without drops. */
  onOverflow: (() => void) | undefined;
  private frames: Array<Buffer | string> = [];
  private sizes: number[] = [];
  private head = 0;
  /**
   * Numbers of the held frames that are larger than every frame held after them, oldest first (a monotonic queue):
   * its first is the largest frame held, found in constant time per frame.
   */
  private largest: number[] = [];
  private largestHead = 0;
  /** Number of `frames[head]` (the oldest frame held); `sent + 1` when none is held. */
  private firstHeld = 1;
  private readonly pauseAtBytes: number;

  constructor(
    readonly limitBytes: number,
    messageBytes = 0,
    /** Counted per frame on top of its bytes ({@link FRAME_OVERHEAD_BYTES} for a session's buffers). */
    readonly frameOverheadBytes = 0,
  ) {
    this.boundBytes = limitBytes + messageBytes;
    // Headroom for what is already read when a source pauses (one chunk, the line being split): 1 MiB, or a quarter
    // of a small buffer.
    this.pauseAtBytes = limitBytes - Math.min(1024 * 1024, Math.floor(limitBytes / 4));
  }

  /**
   * Whether the sources feeding this buffer should wait while no socket carries its frames (detached, resuming): it
   * holds as much as it should before the next connection replays it.
   */
  get isFull(): boolean {
    return this.bytes >= this.pauseAtBytes;
  }

  /** Frames held (sent and not acknowledged). */
  get heldFrames(): number {
    return this.frames.length - this.head;
  }

  /** Whether frames the peer had not acknowledged were dropped to stay within the bound (and are still missing). */
  get overflowed(): boolean {
    return this.firstHeld > this.acknowledged + 1;
  }

  /** Records the next frame sent; drops the oldest frames when the bound is exceeded. */
  record(payload: Buffer | string): void {
    const size = frameBytes(payload) + this.frameOverheadBytes;
    this.sent += 1;
    this.frames.push(payload);
    this.sizes.push(size);
    this.bytes += size;
    const largest = this.largest;
    while (largest.length > this.largestHead && this.sizeOf(largest[largest.length - 1]!) <= size)
      largest.pop();
    largest.push(this.sent);
    if (this.bytes > this.allowedBytes()) this.dropOldest();
  }

  /**
   * What may be held now: the limit plus the room for one message while a large frame is held (see
   * {@link LARGE_FRAME_BYTES}), else the limit raised by the largest frame held: small frames alone keep to the limit.
   */
  private allowedBytes(): number {
    const largest = this.largestHead < this.largest.length ? this.sizeOf(this.largest[this.largestHead]!) : 0;
    const room = this.boundBytes - this.limitBytes;
    return this.limitBytes + (largest >= LARGE_FRAME_BYTES ? room : Math.min(largest, room));
  }

  /** Counted bytes of held frame number `n`. */
  private sizeOf(n: number): number {
    return this.sizes[this.head + (n - this.firstHeld)]!;
  }

  /**
   * The peer has received `received` frames: drop those. Returns false when `received` is more than was ever sent (a
   * protocol violation); a count lower than an earlier one is ignored.
   */
  acknowledge(received: number): boolean {
    if (received > this.sent) return false;
    if (received <= this.acknowledged) return true;
    this.acknowledged = received;
    while (this.firstHeld <= received && this.head < this.frames.length) this.dropFirst();
    this.compact();
    return true;
  }

  /** Whether every frame after number `received` is still held, so a peer that received that many can be resumed. */
  canReplayAfter(received: number): boolean {
    return received <= this.sent && received >= this.firstHeld - 1;
  }

  /** The frames after number `received`, oldest first (call {@link canReplayAfter} first). */
  framesAfter(received: number): Array<Buffer | string> {
    const start = this.head + Math.max(0, received - (this.firstHeld - 1));
    return this.frames.slice(start);
  }

  /** Lets go of every frame (the session ended). */
  clear(): void {
    this.frames = [];
    this.sizes = [];
    this.largest = [];
    this.largestHead = 0;
    this.head = 0;
    this.bytes = 0;
    this.firstHeld = this.sent + 1;
  }

  private dropOldest(): void {
    const wasWhole = !this.overflowed;
    while (this.bytes > this.allowedBytes() && this.head < this.frames.length) this.dropFirst();
    this.compact();
    if (wasWhole && this.overflowed) this.onOverflow?.();
  }

  private dropFirst(): void {
    if (this.largest[this.largestHead] === this.firstHeld) {
      this.largestHead += 1;
      if (this.largestHead === this.largest.length || this.largestHead >= COMPACT_AFTER) {
        this.largest = this.largest.slice(this.largestHead);
        this.largestHead = 0;
      }
    }
    this.bytes -= this.sizes[this.head]!;
    this.frames[this.head] = '';
    this.head += 1;
    this.firstHeld += 1;
  }

  private compact(): void {
    if (this.head === this.frames.length) {
      this.frames = [];
      this.sizes = [];
      this.head = 0;
      return;
    }
    if (this.head < COMPACT_AFTER || this.head * 2 < this.frames.length) return;
    this.frames = this.frames.slice(this.head);
    this.sizes = this.sizes.slice(this.head);
    this.head = 0;
  }
}
