import { describe, expect, it } from 'vitest';
import { describeBlock, extractFencedCode, extractTypeScriptBlocks } from './code-blocks.js';

const document = [
  '# Title', // 1
  '', // 2
  '```ts', // 3
  "const first = 'one';", // 4
  '```', // 5
  '', // 6
  '```sh', // 7
  'pnpm demo', // 8
  '```', // 9
  '', // 10
  '- a list item', // 11
  '', // 12
  '  ```typescript', // 13
  '  const nested = 2;', // 14
  '  ```', // 15
  '', // 16
  '```ts ignore', // 17
  'partial(', // 18
  '```', // 19
  '', // 20
  '~~~mts', // 21
  'export const tilde = 3;', // 22
  '~~~', // 23
  '', // 24
  '````md', // 25
  '```ts', // 26
  'not a block: inside a four-backtick fence', // 27
  '```', // 28
  '````', // 29
].join('\n');

describe('extractTypeScriptBlocks', () => {
  it('returns ts, typescript and mts fences in order with their fence line and numbers', () => {
    const blocks = extractTypeScriptBlocks(document, 'README.md');
    expect(blocks.map(({ number, line, code, ignored }) => ({ number, line, code, ignored }))).toEqual([
      { number: 1, line: 3, code: "const first = 'one';\n", ignored: false },
      { number: 2, line: 13, code: 'const nested = 2;\n', ignored: false },
      { number: 3, line: 17, code: 'partial(\n', ignored: true },
      { number: 4, line: 21, code: 'export const tilde = 3;\n', ignored: false },
    ]);
    expect(blocks.every((block) => block.source === 'README.md')).toBe(true);
  });

  it('returns nothing when a document has no TypeScript fences', () => {
    expect(extractTypeScriptBlocks('```js\nlet a;\n```\n\n    indented code\n', 'x.md')).toEqual([]);
  });
});

describe('describeBlock', () => {
  it('names the file, the block number and the fence line', () => {
    const [block] = extractTypeScriptBlocks(document, 'docs/cli.md');
    expect(block && describeBlock(block)).toBe('docs/cli.md block 1 (line 3)');
  });
});

describe('extractFencedCode', () => {
  it('returns the contents of every fence of one language, in order', () => {
    expect(extractFencedCode(document, 'sh')).toEqual(['pnpm demo\n']);
    expect(extractFencedCode(document, 'md')).toEqual([
      '```ts\nnot a block: inside a four-backtick fence\n```\n',
    ]);
    expect(extractFencedCode(document, 'nginx')).toEqual([]);
  });
});
