// An incremental reader of Server-Sent Events (id + data lines; comments kept, since our server ends a stream with one).

/** One event or one comment line of the stream. */
export type SseItem =
  | { kind: 'event'; id: number | undefined; data: string }
  | { kind: 'comment'; text: string };

/**
 * Splits decoded text into events. A chunk may end anywhere (mid-line, mid-event); only whole events are returned.
 * The buffer is searched from where the last search stopped, so a 10 MB event costs one pass, not one per chunk.
 */
export class SseParser {
  private buffer = '';
  private searchFrom = 0;

  push(text: string): SseItem[] {
    this.buffer += text;
    const items: SseItem[] = [];
    for (;;) {
      const end = this.nextBoundary();
      if (end === undefined) break;
      const block = this.buffer.slice(0, end.index);
      this.buffer = this.buffer.slice(end.index + end.length);
      this.searchFrom = 0;
      items.push(...parseBlock(block));
    }
    return items;
  }

  private nextBoundary(): { index: number; length: number } | undefined {
    const start = Math.max(0, this.searchFrom - 3);
    const lf = this.buffer.indexOf('\n\n', start);
    const crlf = this.buffer.indexOf('\r\n\r\n', start);
    if (lf === -1 && crlf === -1) {
      this.searchFrom = this.buffer.length;
      return undefined;
    }
    if (crlf !== -1 && (lf === -1 || crlf < lf)) return { index: crlf, length: 4 };
    return { index: lf, length: 2 };
  }
}

function parseBlock(block: string): SseItem[] {
  const items: SseItem[] = [];
  let id: number | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) {
      items.push({ kind: 'comment', text: line.slice(1).trim() });
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id' && /^\d+$/.test(value)) id = Number(value);
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) items.push({ kind: 'event', id, data: data.join('\n') });
  return items;
}
