// Splits a byte stream into lines, bounded per line, keeping the head of an oversized one: NDJSON (a line ends at
// `\n`) and Server-Sent Events (at `\r\n`, `\n` or `\r`).
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OVERSIZE_HEAD_BYTES = 64 * 1024;

/** Callbacks of a {@link LineSplitter}. */
export interface LineSplitterHandlers {
  /** One complete line without its ending (NDJSON: without its `\n` and one trailing `\r`). */
  onLine(line: Buffer): void;
  /** A line grew past the limit; `head` is its first bytes (for id recovery). The rest of it is skipped. */
  onOversize(head: Buffer): void;
}

/**
 * Where lines end: `ndjson`, at `\n` (one `\r` before it is dropped, and counts towards no limit); `sse`, at `\r\n`,
 * `\n` or a lone `\r`, as the Server-Sent Events format has it.
 */
export type LineEndings = 'ndjson' | 'sse';

/**
 * Splits a byte stream into lines in linear time: each chunk is scanned once for line endings and a line's pieces are
 * concatenated once, when it completes. A naive `buffer += chunk; split()` is quadratic on one 16 MiB line.
 * Hand-written because Node's `readline` has no line-length limit and decodes text before splitting. The one
 * splitter of the package: an agent's stdout, the mirror's stdin and an SSE stream all go through it.
 *
 * @example
 * ```ts
 * const splitter = new LineSplitter(1024, { onLine: (line) => handle(line), onOversize: () => refuse() });
 * splitter.push(Buffer.from('{"jsonrpc":"2.0"}\n'));
 * ```
 */
export class LineSplitter {
  private readonly pieces: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  /** SSE: the last chunk ended with `\r`, so a `\n` opening the next one belongs to that line ending. */
  private afterCarriageReturn = false;
  private readonly maxLineBytes: number;
  private readonly handlers: LineSplitterHandlers;
  private readonly endings: LineEndings;

  constructor(maxLineBytes: number, handlers: LineSplitterHandlers, endings: LineEndings = 'ndjson') {
    this.maxLineBytes = maxLineBytes;
    this.handlers = handlers;
    this.endings = endings;
  }

  /** Bytes held for the current incomplete line (bounded by the limit). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    if (this.endings === 'sse') {
      this.pushSse(chunk);
      return;
    }
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

  /** Flushes a final line that has no line ending. */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding) this.finishLine();
  }

  private pushSse(chunk: Buffer): void {
    let start = 0;
    if (this.afterCarriageReturn && chunk.length > 0) {
      this.afterCarriageReturn = false;
      if (chunk[0] === NEWLINE) start = 1;
    }
    let nextFeed = -2;
    let nextReturn = -2;
    while (start < chunk.length) {
      if (nextFeed !== -1 && nextFeed < start) nextFeed = chunk.indexOf(NEWLINE, start);
      if (nextReturn !== -1 && nextReturn < start) nextReturn = chunk.indexOf(CARRIAGE_RETURN, start);
      const end =
        nextFeed === -1 ? nextReturn : nextReturn === -1 ? nextFeed : Math.min(nextFeed, nextReturn);
      if (end === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, end));
      this.finishLine();
      start = end + 1;
      if (end === nextReturn) {
        if (start === chunk.length) this.afterCarriageReturn = true;
        else if (chunk[start] === NEWLINE) start += 1;
      }
    }
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.discarding) return;
    this.pieces.push(piece);
    this.pendingBytes += piece.length;
    // NDJSON: one extra byte of slack for a trailing `\r`, which does not count towards the limit.
    if (this.pendingBytes > this.maxLineBytes + (this.endings === 'ndjson' ? 1 : 0)) {
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
    if (this.endings === 'ndjson' && line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN)
      line = line.subarray(0, line.length - 1);
    if (line.length > this.maxLineBytes) {
      this.handlers.onOversize(line.subarray(0, OVERSIZE_HEAD_BYTES));
      return;
    }
    this.handlers.onLine(line);
  }
}
