// An incremental reader of Server-Sent Events (id + data lines; comments kept, since our server ends a stream with one).

/** One event or one comment line of the stream. */
export type SseItem =
  | { kind: 'event'; id: number | undefined; data: string }
  | { kind: 'comment'; text: string };

/**
 * Splits decoded text into events. A chunk may end anywhere (mid-line, mid-event); only whole events are returned.
 * Chunks without a boundary are kept in a list and joined once their event is complete (appending to one string and
 * searching it would copy a 10 MB event once per chunk); only the new chunk, plus the last three characters before
 * it, is searched.
 */
export class SseParser {
  private pending: string[] = [];
  private tail = '';

  push(text: string): SseItem[] {
    const items: SseItem[] = [];
    let input = text;
    for (;;) {
      const probe = this.tail + input;
      const found = findBoundary(probe);
      if (found === undefined) {
        this.pending.push(input);
        this.tail = probe.slice(-3);
        return items;
      }
      const joined = this.pending.join('') + input;
      const at = joined.length - input.length - this.tail.length + found.index;
      items.push(...parseBlock(joined.slice(0, at)));
      input = joined.slice(at + found.length);
      this.pending = [];
      this.tail = '';
    }
  }
}

/** The first blank line (`\n\n` or `\r\n\r\n`) in `text`. */
function findBoundary(text: string): { index: number; length: number } | undefined {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf === -1 && crlf === -1) return undefined;
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { index: crlf, length: 4 };
  return { index: lf, length: 2 };
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
