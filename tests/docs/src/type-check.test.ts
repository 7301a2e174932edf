import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { extractTypeScriptBlocks } from './code-blocks.js';
import { formatDiagnostics, typeCheckBlocks } from './type-check.js';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const scratchDirectories: string[] = [];

afterEach(() => {
  for (const directory of scratchDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const document = [
  '```ts', // 1
  "import { RemoteDefaults } from '@acpkit/remote';", // 2
  'const path: string = RemoteDefaults.mountPath;', // 3
  'export const server = path;', // 4
  '```', // 5
  '', // 6
  '```ts', // 7
  'const server = 1;', // 8 (a second top-level `server`: fine, every block is its own module)
  'const wrong: string = server;', // 9
  '```', // 10
  '', // 11
  '```ts ignore', // 12
  'this is not TypeScript', // 13
  '```', // 14
].join('\n');

describe('typeCheckBlocks', () => {
  it('compiles each block as its own module against the built packages and maps errors to Markdown lines', () => {
    const directory = mkdtempSync(join(packageDirectory, '.extracted-'));
    scratchDirectories.push(directory);
    const blocks = extractTypeScriptBlocks(document, 'docs/example.md');
    // Declaration files are checked by the markdown-examples test; here only the block mapping matters.
    const report = typeCheckBlocks(blocks, directory, repositoryRoot, { skipLibCheck: true });

    expect(report.byBlock.size).toBe(2);
    expect(report.byBlock.get(blocks[0]!)).toEqual([]);
    const failures = report.byBlock.get(blocks[1]!) ?? [];
    expect(failures.map(({ code, line, file }) => ({ code, line, file }))).toEqual([
      { code: 'TS2322', line: 9, file: 'docs/example.md' },
    ]);
    expect(formatDiagnostics(failures)).toMatch(
      /^docs\/example\.md:9 TS2322 Type 'number' is not assignable/,
    );
    expect(report.byBlock.has(blocks[2]!)).toBe(false);
  });
});
