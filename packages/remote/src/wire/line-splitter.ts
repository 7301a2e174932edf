// Splits a byte stream into NDJSON lines, bounded per line, keeping the head of an oversized one.
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OVERSIZE_HEAD_BYTES = 64 * 1024;

/** Callbacks of a {@link LineSplitter}. */
export interface LineSplitterHandlers {
  /** One complete line without its `\n` and without one trailing `\r`. */
  onLine(line: Buffer): void;
  /** A line grew past the limit; `head` is its first bytes (for id recovery). The rest of it is skipped. */
  onOversize(head: Buffer): void;
}

/**
 * Splits a byte stream into NDJSON lines in linear time: each chunk is scanned once for `\n` and a line's pieces are
 * concatenated once, when it completes. A naive `buffer += chunk; split()` is quadratic on one 16 MiB line.
 * Hand-written because Node's `readline` has no line-length limit and decodes text before splitting.
 */
export class LineSplitter {
  private readonly pieces: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private readonly maxLineBytes: number;
  private readonly handlers: LineSplitterHandlers;

  constructor(maxLineBytes: number, handlers: LineSplitterHandlers) {
    this.maxLineBytes = maxLineBytes;
    this.handlers = handlers;
  }

  /** Bytes held for the current incomplete line (bounded by the limit). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
  }

  /** Flushes a final line that has no trailing newline. */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding) this.finishLine();
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.discarding) return;
    this.pieces.push(piece);
    this.pendingBytes += piece.length;
    // One extra byte of slack for a trailing `\r`, which does not count towards the limit.
    if (this.pendingBytes > this.maxLineBytes + 1) {
      const head = Buffer.concat(this.pieces, Math.min(this.pendingBytes, OVERSIZE_HEAD_BYTES));
      this.pieces.length = 0;
      this.pendingBytes = 0;
      this.discarding = true;
      this.handlers.onOversize(head);
    }
  }

  private finishLine(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.pendingBytes);
    this.pieces.length = 0;
    this.pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN)
      line = line.subarray(0, line.length - 1);
    if (line.length > this.maxLineBytes) {
      this.handlers.onOversize(line.subarray(0, OVERSIZE_HEAD_BYTES));
      return;
    }
    this.handlers.onLine(line);
  }
}
