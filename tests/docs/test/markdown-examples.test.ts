// Every ```ts block of the READMEs and docs/*.md is compiled against the BUILT packages (this package's
// node_modules link the workspace packages, whose `exports` point at dist/), with skipLibCheck on: the declarations
// themselves are checked with it off once per test command, on the packed tarballs, by release:check's consumer step
// (scripts/release/consumer/consumer.ts imports every entry point of every public package); checking them again here,
// with the AI SDK's and LangChain's, doubled this file's CPU (35 → 18 CPU-s). A block that is deliberately not
// complete TypeScript is fenced ```ts ignore (the convention is described in tests/docs/README.md).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, describeBlock, extractTypeScriptBlocks } from '../src/code-blocks.js';
import { documentedMarkdownFiles, PUBLIC_PACKAGE_DIRECTORIES } from '../src/sources.js';
import { formatDiagnostics, type TypeCheckReport, typeCheckBlocks } from '../src/type-check.js';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

const files = documentedMarkdownFiles(repositoryRoot);
const blocks: CodeBlock[] = files.flatMap((file) =>
  extractTypeScriptBlocks(readFileSync(join(repositoryRoot, file), 'utf8'), file),
);
const checkedBlocks = blocks.filter((block) => !block.ignored);

let scratchDirectory: string | undefined;
let report: TypeCheckReport;

beforeAll(() => {
  const builtEntryPoints = PUBLIC_PACKAGE_DIRECTORIES.map((directory) =>
    join(repositoryRoot, directory, 'dist/index.d.ts'),
  );
  const missing = builtEntryPoints.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`Build the packages first (pnpm build); missing: ${missing.join(', ')}`);
  }
  scratchDirectory = mkdtempSync(join(packageDirectory, '.extracted-'));
  report = typeCheckBlocks(blocks, scratchDirectory, repositoryRoot, { skipLibCheck: true });
});

afterAll(() => {
  if (scratchDirectory === undefined) return;
  // KEEP_EXTRACTED=1 keeps the files and their tsconfig.json for `tsc --noEmit -p <directory>` by hand.
  if (process.env.KEEP_EXTRACTED === '1') console.error(`Extracted examples kept in ${scratchDirectory}`);
  else rmSync(scratchDirectory, { recursive: true, force: true });
});

describe('documented TypeScript examples', () => {
  it('finds the Markdown files and their examples', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/typed-elicitation.md');
    expect(checkedBlocks.length).toBeGreaterThan(10);
  });

  it.each(PUBLIC_PACKAGE_DIRECTORIES)(
    '%s/README.md has at least one compiled TypeScript example',
    (directory) => {
      const compiled = checkedBlocks.filter((block) => block.source === `${directory}/README.md`);
      expect(
        compiled.length,
        `${directory}/README.md has no \`\`\`ts example that the docs tests compile`,
      ).toBeGreaterThan(0);
    },
  );

  it('reports nothing outside the blocks (configuration, module resolution of the built packages)', () => {
    expect(report.other, formatDiagnostics(report.other)).toEqual([]);
  });

  it.each(checkedBlocks.map((block) => [describeBlock(block), block] as const))(
    '%s compiles',
    (_name, block) => {
      const diagnostics = report.byBlock.get(block) ?? [];
      expect(
        diagnostics,
        `${describeBlock(block)} does not compile:\n${formatDiagnostics(diagnostics)}`,
      ).toEqual([]);
    },
  );
});
