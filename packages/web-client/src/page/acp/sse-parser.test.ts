import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('reads ids, data and comments across chunks that split anywhere', () => {
    const parser = new SseParser();
    const text =
      ': hello\n\nid: 1\ndata: {"a":1}\n\nid: 2\r\ndata: {"b":\r\ndata: 2}\r\n\r\n: closed 1000 bye\n\n';
    const items = [...text].flatMap((character) => parser.push(character));
    expect(items).toEqual([
      { kind: 'comment', text: 'hello' },
      { kind: 'event', id: 1, data: '{"a":1}' },
      { kind: 'event', id: 2, data: '{"b":\n2}' },
      { kind: 'comment', text: 'closed 1000 bye' },
    ]);
  });

  it('reads a 10 MB event from 64 KiB chunks', () => {
    const parser = new SseParser();
    const payload = 'x'.repeat(10_000_000);
    const text = `id: 7\ndata: ${payload}\n\n`;
    const items = [];
    for (let offset = 0; offset < text.length; offset += 65_536)
      items.push(...parser.push(text.slice(offset, offset + 65_536)));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'event', id: 7 });
    expect((items[0] as { data: string }).data.length).toBe(10_000_000);
  });
});
