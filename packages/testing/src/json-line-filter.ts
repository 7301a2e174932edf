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
  /** The line's length in bytes. */
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

/**
 * Passes the lines of an agent's stdout that can be JSON-RPC (their first non-blank byte is `{`) through unchanged,
 * and drops every other line, reporting it with a preview. A stdio ACP agent's stdout must carry only JSON-RPC;
 * a log line or banner there would otherwise reach the SDK, which answers it with a parse error the person never
 * sees. Whole JSON messages are never buffered or decoded here; a dropped line keeps only its first bytes.
 *
 * @example
 * ```ts
 * const filtered = child.stdout.pipe(new JsonLineFilter((line) => console.error(`not JSON: ${line.preview}`)));
 * ```
 */
export class JsonLineFilter extends Transform {
  private state: 'line-start' | 'pass' | 'drop' = 'line-start';
  private droppedHead: Buffer[] = [];
  private droppedHeadBytes = 0;
  private droppedBytes = 0;

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
        this.state = chunk[index] === OPEN_BRACE ? 'pass' : 'drop';
      }
      const newline = chunk.indexOf(NEWLINE, index);
      const end = newline === -1 ? chunk.length : newline + 1;
      if (this.state === 'pass') {
        passed.push(chunk.subarray(index, end));
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
    callback();
  }

  private keep(piece: Buffer): void {
    this.droppedBytes += piece.length;
    const room = PREVIEW_BYTES - this.droppedHeadBytes;
    if (room <= 0 || piece.length === 0) return;
    const kept = piece.subarray(0, room);
    this.droppedHead.push(Buffer.from(kept));
    this.droppedHeadBytes += kept.length;
  }

  private reportDropped(): void {
    const line = {
      preview: previewOf(Buffer.concat(this.droppedHead), this.droppedBytes),
      bytes: this.droppedBytes,
    };
    this.droppedHead = [];
    this.droppedHeadBytes = 0;
    this.droppedBytes = 0;
    this.state = 'line-start';
    this.onNonJsonLine(line);
  }
}
