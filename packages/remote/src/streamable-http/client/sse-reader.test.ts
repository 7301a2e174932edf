import { describe, expect, it } from 'vitest';
import { type SseEvent, SseReader } from './sse-reader.js';

function read(chunks: Array<string | Buffer>, maxEventBytes = 1024) {
  const events: Array<{ data: string; id: string | undefined }> = [];
  const comments: string[] = [];
  let oversize = 0;
  const reader = new SseReader(maxEventBytes, {
    event: (event: SseEvent) => events.push({ data: event.data.toString(), id: event.id }),
    comment: (text) => comments.push(text),
    oversize: () => {
      oversize += 1;
    },
  });
  for (const chunk of chunks) reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  reader.end();
  return { events, comments, oversize, lastEventId: reader.lastEventId };
}

describe('SseReader', () => {
  it('reads events with ids and data as our server and both SDKs write them', () => {
    expect(read(['id: 1\ndata: {"a":1}\n\n', 'data: {"b":2}\n\n']).events).toEqual([
      { data: '{"a":1}', id: '1' },
      { data: '{"b":2}', id: '1' },
    ]);
  });

  it('accepts LF, CRLF and CR line ends, also split between chunks', () => {
    const text = 'data: x\r\n\r\ndata: y\r\rdata: z\n\n';
    const whole = read([text]).events;
    expect(whole.map((event) => event.data)).toEqual(['x', 'y', 'z']);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(read([text.slice(0, cut), text.slice(cut)]).events).toEqual(whole);
    }
  });

  it('joins several data lines with a line feed and keeps a missing space after the colon', () => {
    expect(read(['data:one\ndata: two\n\n']).events).toEqual([{ data: 'one\ntwo', id: undefined }]);
  });

  it('reports comments and ignores event, retry and unknown fields', () => {
    const result = read([':\n\n: closed 4000 agent exited\nevent: x\nretry: 5\nfoo\ndata: m\n\n']);
    expect(result.comments).toEqual(['', 'closed 4000 agent exited']);
    expect(result.events).toEqual([{ data: 'm', id: undefined }]);
  });

  it('takes an id from an event without data and ignores an id with NUL', () => {
    expect(read(['id: 7\n\nid: 8\u0000\n\n']).lastEventId).toBe('7');
  });

  it('skips a leading byte order mark once', () => {
    expect(read([Buffer.from([0xef, 0xbb]), Buffer.from([0xbf]), 'data: x\n\n']).events).toHaveLength(1);
  });

  it('drops an event over the limit up to its blank line and goes on', () => {
    const big = 'x'.repeat(100);
    const result = read([`data: ${big}\ndata: ${big}\n\ndata: ok\n\n`], 150);
    expect(result.oversize).toBe(1);
    expect(result.events).toEqual([{ data: 'ok', id: undefined }]);
    const line = read([`data: ${'y'.repeat(500)}`, `${'y'.repeat(500)}\n\ndata: after\n\n`], 150);
    expect(line.oversize).toBe(1);
    expect(line.events).toEqual([{ data: 'after', id: undefined }]);
  });

  it('drops an event the stream ends in the middle of', () => {
    expect(read(['data: half']).events).toEqual([]);
  });

  it('counts an id once its event ended (a cut mid-event resumes from the one before), id-only blocks too', () => {
    const events: Array<{ cursor: string | undefined; type: string | undefined }> = [];
    const reader = new SseReader(1024, {
      event: (event) => events.push({ cursor: event.cursor, type: event.type }),
      oversize: () => {},
    });
    reader.push(Buffer.from('id: 0\n\nid: 1\ndata: a\n\nevent: acp/turnState\ndata: {}\n\nid: 2\ndata: b'));
    expect(reader.lastEventId).toBe('1');
    expect(events).toEqual([
      { cursor: '1', type: undefined },
      { cursor: undefined, type: 'acp/turnState' },
    ]);
    const next = new SseReader(1024, { event: () => {}, oversize: () => {} }, reader.lastEventId);
    expect(next.lastEventId).toBe('1');
  });

  it('reads a 4 MiB event delivered in 64 KiB chunks', () => {
    const payload = 'z'.repeat(4 << 20);
    const chunks: Buffer[] = [];
    const bytes = Buffer.from(`id: 1\ndata: ${payload}\n\n`);
    for (let offset = 0; offset < bytes.length; offset += 65_536)
      chunks.push(bytes.subarray(offset, offset + 65_536));
    const result = read(chunks, 8 << 20);
    expect(result.events).toEqual([{ data: payload, id: '1' }]);
  });
});
