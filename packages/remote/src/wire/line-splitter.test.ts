// Unit tests of the line splitter.
import { describe, expect, it, vi } from 'vitest';
import { LineSplitter } from './line-splitter.js';

function collect(maxLineBytes: number) {
  const lines: string[] = [];
  const oversize: string[] = [];
  const splitter = new LineSplitter(maxLineBytes, {
    onLine: (line) => lines.push(line.toString('utf8')),
    onOversize: (head) => oversize.push(head.toString('utf8')),
  });
  return { splitter, lines, oversize };
}

/** Small deterministic PRNG (mulberry32) so random chunking is reproducible. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe('LineSplitter', () => {
  it('yields the same lines for every random chunking of the input', () => {
    const messages = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify({ jsonrpc: '2.0', id: index, method: 'm', params: { text: 'é✓'.repeat(index) } }),
    );
    const input = Buffer.from(`${messages.join('\n')}\n`);
    for (let seed = 1; seed <= 50; seed += 1) {
      const next = random(seed);
      const { splitter, lines } = collect(1024 * 1024);
      let offset = 0;
      while (offset < input.length) {
        const size = 1 + Math.floor(next() * 97);
        splitter.push(input.subarray(offset, offset + size));
        offset += size;
      }
      splitter.end();
      expect(lines).toEqual(messages);
    }
  });

  it('strips one trailing carriage return when lines end with CRLF', () => {
    const { splitter, lines } = collect(100);
    splitter.push(Buffer.from('{"a":1}\r\n{"b":2}\r'));
    splitter.push(Buffer.from('\n'));
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('flushes a final line without a newline on end', () => {
    const { splitter, lines } = collect(100);
    splitter.push(Buffer.from('{"a":1}\n{"tail":true}'));
    expect(lines).toEqual(['{"a":1}']);
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"tail":true}']);
  });

  it('reports empty lines as empty so the caller can skip them', () => {
    const { splitter, lines } = collect(100);
    splitter.push(Buffer.from('\n\r\n{"a":1}\n'));
    expect(lines).toEqual(['', '', '{"a":1}']);
  });

  it('reassembles one 16 MiB line with a single concatenation when it arrives in 64 KiB chunks', () => {
    const size = 16 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const concat = vi.spyOn(Buffer, 'concat');
    let received = 0;
    const splitter = new LineSplitter(size, {
      onLine: (line) => {
        received = line.length;
      },
      onOversize: () => {
        throw new Error('unexpected oversize');
      },
    });
    for (let offset = 0; offset < size; offset += chunk.length) splitter.push(chunk);
    splitter.push(Buffer.from('\n'));
    expect(received).toBe(size);
    // Linear framing: the pieces are joined once, not once per chunk.
    expect(concat).toHaveBeenCalledTimes(1);
  });

  it('reports an oversized line once with its head and keeps framing the lines after it', () => {
    const { splitter, lines, oversize } = collect(16);
    splitter.push(Buffer.from('{"id":7,"method":"x","params":"'));
    splitter.push(Buffer.from('y'.repeat(100)));
    splitter.push(Buffer.from('"}\n{"ok":1}\n'));
    expect(oversize).toHaveLength(1);
    expect(oversize[0]).toMatch(/^\{"id":7,"method":"x"/);
    expect(lines).toEqual(['{"ok":1}']);
  });

  it('does not count a trailing carriage return towards the limit', () => {
    const { splitter, lines, oversize } = collect(7);
    splitter.push(Buffer.from('{"a":1}\r\n'));
    expect(oversize).toEqual([]);
    expect(lines).toEqual(['{"a":1}']);
  });

  it('reports a line that is one byte over the limit when it completes', () => {
    const { splitter, lines, oversize } = collect(6);
    splitter.push(Buffer.from('{"a":1}\n'));
    expect(lines).toEqual([]);
    expect(oversize).toHaveLength(1);
  });

  it('ends SSE lines at CRLF, LF or a lone CR, wherever the chunks are cut', () => {
    const text = 'a\r\nb\nc\rd\r\re\n';
    const read = (chunks: string[]) => {
      const lines: string[] = [];
      const splitter = new LineSplitter(
        64,
        { onLine: (line) => lines.push(line.toString('utf8')), onOversize: () => lines.push('!') },
        'sse',
      );
      for (const chunk of chunks) splitter.push(Buffer.from(chunk));
      splitter.end();
      return lines;
    };
    expect(read([text])).toEqual(['a', 'b', 'c', 'd', '', 'e']);
    for (let cut = 1; cut < text.length; cut += 1)
      expect(read([text.slice(0, cut), text.slice(cut)])).toEqual(['a', 'b', 'c', 'd', '', 'e']);
  });
});
