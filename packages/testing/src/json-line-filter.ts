import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
/** Bytes skipped at the start of a line: space, tab, carriage return, and the UTF-8 byte order mark. */
const SKIPPED_AT_LINE_START = new Set([0x20, 0x09, 0x0d, 0xef, 0xbb, 0xbf]);
/** How much of a dropped line is kept for the warning. */
const PREVIEW_BYTES = 120;
const PREVIEW_CHARACTERS = 80;

/** A line an agent wrote to stdout that cannot be a JSON-RPC message (it does not start with `{`). */
export interface NonJsonLine {
  /** The start of the line as text, control characters removed, at most 80 characters (`…` when cut). */
  readonly preview: string;
  /**
   * The line's length in bytes; for a line longer than its preview, the bytes read when it was reported (as soon as
   * the preview was complete, before its end).
   */
  readonly bytes: number;
}

/** Shortens a dropped line to a one-line preview a person can read in a warning. */
function previewOf(head: Buffer, totalBytes: number): string {
  const text = head
    .toString('utf8')
    .replace(/\uFFFD+$/, '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed.
    .replace(/[\s\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  const cut = text.length > PREVIEW_CHARACTERS || totalBytes > head.length;
  return cut ? `${text.slice(0, PREVIEW_CHARACTERS)}…` : text;
}

/** The longest first JSON line checked in full before it is passed on: an `initialize` answer is far smaller. */
const CHECKED_LINE_BYTES = 1024 * 1024;

/** Whether `line` is one JSON-RPC message: an object with `jsonrpc: "2.0"`. */
function isJsonRpcLine(line: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
  } catch {
    return false;
  }
}

/**
 * Passes the lines of an agent's stdout that can be JSON-RPC (their first non-blank byte is `{`) through unchanged,
 * and drops every other line, reporting it with a preview. A stdio ACP agent's stdout must carry only JSON-RPC;
 * a log line or banner there would otherwise reach the SDK, which answers it with a parse error the person never
 * sees. Until the first JSON-RPC message has come, each `{` line is checked whole (up to 1 MiB) and dropped as well
 * when it is no JSON-RPC message (a log line in braces), so a program that is no ACP agent is recognised whatever it
 * prints; after it, whole JSON messages are never buffered or decoded here. A dropped line keeps only its first
 * bytes, and is reported as soon as they are known (a line that never ends is reported all the same).
 *
 * @example
 * ```ts
 * const filtered = child.stdout.pipe(new JsonLineFilter((line) => console.error(`not JSON: ${line.preview}`)));
 * ```
 */
export class JsonLineFilter extends Transform {
  private state: 'line-start' | 'pass' | 'drop' | 'check' = 'line-start';
  /** True until a JSON-RPC message has passed: `{` lines are checked whole until then. */
  private checking = true;
  private checked: Buffer[] = [];
  private checkedBytes = 0;
  private droppedHead: Buffer[] = [];
  private droppedHeadBytes = 0;
  private droppedBytes = 0;
  /** The dropped line in progress was reported already (its preview was complete before its end). */
  private reported = false;

  constructor(private readonly onNonJsonLine: (line: NonJsonLine) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const passed: Buffer[] = [];
    let index = 0;
    while (index < chunk.length) {
      if (this.state === 'line-start') {
        while (index < chunk.length) {
          const byte = chunk[index] as number;
          if (byte !== NEWLINE && !SKIPPED_AT_LINE_START.has(byte)) break;
          index += 1;
        }
        if (index === chunk.length) break;
        this.state = chunk[index] !== OPEN_BRACE ? 'drop' : this.checking ? 'check' : 'pass';
      }
      const newline = chunk.indexOf(NEWLINE, index);
      const end = newline === -1 ? chunk.length : newline + 1;
      if (this.state === 'pass') {
        passed.push(chunk.subarray(index, end));
      } else if (this.state === 'check') {
        this.checkPiece(chunk.subarray(index, end), newline !== -1, passed);
      } else {
        this.keep(chunk.subarray(index, newline === -1 ? chunk.length : newline));
        if (newline !== -1) this.reportDropped();
      }
      if (newline !== -1) this.state = 'line-start';
      index = end;
    }
    if (passed.length > 0) this.push(passed.length === 1 ? passed[0] : Buffer.concat(passed));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.state === 'drop') this.reportDropped();
    if (this.state === 'check') {
      const passed: Buffer[] = [];
      this.endCheckedLine(passed);
      if (passed.length > 0) this.push(Buffer.concat(passed));
    }
    callback();
  }

  /** A piece of a `{` line checked whole: kept until its end, or passed on once it is too long to be a log line. */
  private checkPiece(piece: Buffer, lineEnds: boolean, passed: Buffer[]): void {
    this.checked.push(Buffer.from(piece));
    this.checkedBytes += piece.length;
    if (lineEnds) {
      this.endCheckedLine(passed);
    } else if (this.checkedBytes > CHECKED_LINE_BYTES) {
      passed.push(...this.checked);
      this.resetChecked();
      this.checking = false;
      this.state = 'pass';
    }
  }

  private endCheckedLine(passed: Buffer[]): void {
    const line = Buffer.concat(this.checked);
    this.resetChecked();
    if (isJsonRpcLine(line)) {
      passed.push(line);
      this.checking = false;
      return;
    }
    const text = line.subarray(0, line.at(-1) === NEWLINE ? -1 : undefined);
    this.keep(text);
    this.reportDropped();
  }

  private resetChecked(): void {
    this.checked = [];
    this.checkedBytes = 0;
  }

  private keep(piece: Buffer): void {
    this.droppedBytes += piece.length;
    const room = PREVIEW_BYTES - this.droppedHeadBytes;
    if (room > 0 && piece.length > 0) {
      const kept = piece.subarray(0, room);
      this.droppedHead.push(Buffer.from(kept));
      this.droppedHeadBytes += kept.length;
    }
    // Its preview is complete: say so now, not only at a newline that may never come.
    if (!this.reported && this.droppedHeadBytes >= PREVIEW_BYTES && this.droppedBytes > PREVIEW_BYTES) {
      this.reported = true;
      this.onNonJsonLine(this.droppedLine());
    }
  }

  private droppedLine(): NonJsonLine {
    return {
      preview: previewOf(Buffer.concat(this.droppedHead), this.droppedBytes),
      bytes: this.droppedBytes,
    };
  }

  private reportDropped(): void {
    const line = this.droppedLine();
    const reported = this.reported;
    this.droppedHead = [];
    this.droppedHeadBytes = 0;
    this.droppedBytes = 0;
    this.reported = false;
    this.state = 'line-start';
    if (!reported) this.onNonJsonLine(line);
  }
}
