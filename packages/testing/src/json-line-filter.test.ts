import { describe, expect, it } from 'vitest';
import { JsonLineFilter, type NonJsonLine } from './json-line-filter.js';

/** Feeds `chunks` through a filter and returns what passed and what was reported. */
async function filter(
  chunks: readonly (string | Buffer)[],
): Promise<{ passed: string; dropped: NonJsonLine[] }> {
  const dropped: NonJsonLine[] = [];
  const stream = new JsonLineFilter((line) => dropped.push(line));
  const passed: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => passed.push(chunk));
  const finished = new Promise<void>((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) stream.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  stream.end();
  await finished;
  return { passed: Buffer.concat(passed).toString('utf8'), dropped };
}

describe('JsonLineFilter', () => {
  it('passes JSON-RPC lines through byte for byte, however they are chunked', async () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"x"}\n';
    for (let size = 1; size <= text.length; size += 7) {
      const chunks: string[] = [];
      for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
      expect(await filter(chunks)).toEqual({ passed: text, dropped: [] });
    }
  });

  it('drops a line that cannot be JSON-RPC and reports it with a preview', async () => {
    const result = await filter(['Starting agent v1.2…\n{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    expect(result.passed).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    expect(result.dropped).toEqual([{ preview: 'Starting agent v1.2…', bytes: 22 }]);
  });

  it('reports a dropped line split over many chunks once, and a last line without a newline at the end', async () => {
    const result = await filter(['hel', 'lo wor', 'ld\n', 'bye']);
    expect(result.passed).toBe('');
    expect(result.dropped.map((line) => line.preview)).toEqual(['hello world', 'bye']);
  });

  it('keeps only the start of a long dropped line and marks the cut', async () => {
    const result = await filter([`${'x'.repeat(10_000)}\n`]);
    expect(result.dropped).toHaveLength(1);
    expect(result.dropped[0]?.bytes).toBe(10_000);
    expect(result.dropped[0]?.preview).toBe(`${'x'.repeat(80)}…`);
  });

  it('skips blank lines, leading whitespace and a byte order mark, and removes control characters from previews', async () => {
    const result = await filter([
      '\n  \r\n\uFEFF{"jsonrpc":"2.0","id":1}\n\t{"b":2}\n',
      'bell\u0007 and\ttab\n',
    ]);
    expect(result.passed).toBe('{"jsonrpc":"2.0","id":1}\n{"b":2}\n');
    expect(result.dropped.map((line) => line.preview)).toEqual(['bell and tab']);
  });
});

describe('JsonLineFilter before the first JSON-RPC line', () => {
  it('reports a line that never ends as soon as its preview is complete, once', async () => {
    const dropped: NonJsonLine[] = [];
    const stream = new JsonLineFilter((line) => dropped.push(line));
    stream.resume();
    stream.write(Buffer.from('no newline, ever '.repeat(4)));
    expect(dropped).toEqual([]);
    stream.write(Buffer.from('no newline, ever '.repeat(10)));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.preview.endsWith('…')).toBe(true);
    stream.write(Buffer.from('more\n{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    expect(dropped).toHaveLength(1);
  });

  it('drops lines that start with { but are no JSON-RPC, until the first JSON-RPC line; then passes every line', async () => {
    const result = await filter([
      '{ a log line }\n{"level":"info"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n{ later garbage goes to the SDK }\n',
    ]);
    expect(result.dropped.map((line) => line.preview)).toEqual(['{ a log line }', '{"level":"info"}']);
    expect(result.passed).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n{ later garbage goes to the SDK }\n');
  });

  it('passes a first line too long to check (over 1 MiB) without checking it', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":{"text":"${'x'.repeat(1_100_000)}"}}\n`;
    const result = await filter([big.slice(0, 500_000), big.slice(500_000)]);
    expect(result.passed).toBe(big);
    expect(result.dropped).toEqual([]);
  });
});
