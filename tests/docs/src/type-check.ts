import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { CodeBlock } from './code-blocks.js';

/** The compiler options every extracted block is checked with: the repository's base config, libraries included. */
export const EXTRACTED_TSCONFIG = {
  extends: '../../../tsconfig.base.json',
  compilerOptions: {
    // Check the built declarations too, as a consumer with a strict setup would.
    skipLibCheck: false,
    // The AI SDK's declarations (the `ai` peer of @acpkit/ai-sdk) name DOM types (HeadersInit, RequestCredentials,
    // FileList), and @ai-sdk/provider's import `json-schema` types it does not depend on (@types/json-schema, a dev
    // dependency here): what an AI SDK user with skipLibCheck off needs too (docs/ai-sdk.md says so).
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    // A block without imports is still its own module, so two blocks may both declare `server`.
    moduleDetection: 'force',
    noEmit: true,
  },
  include: ['**/*.ts'],
} as const;

/** One compiler message, placed in the Markdown file when it belongs to a block. */
export interface BlockDiagnostic {
  /** `TS2345`, … */
  readonly code: string;
  /** The flattened message text. */
  readonly message: string;
  /** 1-based line in the Markdown file (or in the declaration file for library diagnostics). */
  readonly line: number | undefined;
  /** The file the message is about: the Markdown source for blocks, else a path relative to the repository. */
  readonly file: string | undefined;
}

/** Options of {@link typeCheckBlocks}. */
export interface TypeCheckOptions {
  /** Skip checking declaration files (default false: the built declarations are checked too). */
  readonly skipLibCheck?: boolean;
}

/** What {@link typeCheckBlocks} found. */
export interface TypeCheckReport {
  /** Messages per checked block (an empty array when the block compiles). */
  readonly byBlock: ReadonlyMap<CodeBlock, readonly BlockDiagnostic[]>;
  /** Messages about no block: configuration, or declaration files of the built packages and their dependencies. */
  readonly other: readonly BlockDiagnostic[];
}

function blockFileName(block: CodeBlock): string {
  const slug = block.source.replace(/\.md$/i, '').replace(/[^A-Za-z0-9]+/g, '-');
  return `${slug}/block-${block.number}.ts`;
}

/**
 * Writes each block to its own file under `directory` (which must sit inside this package, so `@acpkit/*` and the
 * SDK resolve through its `node_modules` to the built packages) with a `tsconfig.json`, then compiles them all as one
 * program (the same as `tsc --noEmit -p <directory>`, which reproduces a failure by hand).
 *
 * @param blocks - The blocks to check; ignored blocks are skipped.
 * @param directory - An empty scratch directory inside `tests/docs`.
 * @param repositoryRoot - Used to print library paths relative to the repository.
 * @param options - `skipLibCheck` (default false).
 * @example
 * ```ts
 * const report = typeCheckBlocks(blocks, mkdtempSync(join(packageDirectory, '.extracted-')), repositoryRoot);
 * for (const [block, diagnostics] of report.byBlock) if (diagnostics.length > 0) console.error(block.source);
 * ```
 */
export function typeCheckBlocks(
  blocks: readonly CodeBlock[],
  directory: string,
  repositoryRoot: string,
  options: TypeCheckOptions = {},
): TypeCheckReport {
  const filesToBlocks = new Map<string, CodeBlock>();
  for (const block of blocks) {
    if (block.ignored) continue;
    const file = resolve(directory, blockFileName(block));
    mkdirSync(resolve(file, '..'), { recursive: true });
    writeFileSync(file, block.code);
    filesToBlocks.set(file, block);
  }
  const configPath = join(directory, 'tsconfig.json');
  const configuration = {
    ...EXTRACTED_TSCONFIG,
    compilerOptions: { ...EXTRACTED_TSCONFIG.compilerOptions, skipLibCheck: options.skipLibCheck ?? false },
  };
  writeFileSync(configPath, `${JSON.stringify(configuration, null, 2)}\n`);

  const other: BlockDiagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      other.push(toDiagnostic(diagnostic, undefined, repositoryRoot));
    },
  });
  const byBlock = new Map<CodeBlock, BlockDiagnostic[]>();
  for (const block of filesToBlocks.values()) byBlock.set(block, []);
  if (parsed === undefined) return { byBlock, other };
  for (const diagnostic of parsed.errors) other.push(toDiagnostic(diagnostic, undefined, repositoryRoot));

  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = diagnostic.file ? filesToBlocks.get(resolve(diagnostic.file.fileName)) : undefined;
    if (block === undefined) other.push(toDiagnostic(diagnostic, undefined, repositoryRoot));
    else byBlock.get(block)?.push(toDiagnostic(diagnostic, block, repositoryRoot));
  }
  return { byBlock, other };
}

function toDiagnostic(
  diagnostic: ts.Diagnostic,
  block: CodeBlock | undefined,
  repositoryRoot: string,
): BlockDiagnostic {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const code = `TS${diagnostic.code}`;
  if (diagnostic.file === undefined || diagnostic.start === undefined) {
    return { code, message, line: undefined, file: undefined };
  }
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  if (block !== undefined) {
    // The block's first code line is the line after the opening fence.
    return { code, message, line: block.line + 1 + line, file: block.source };
  }
  return { code, message, line: line + 1, file: relative(repositoryRoot, diagnostic.file.fileName) };
}

/**
 * Formats diagnostics as `path:line TSxxxx message` lines for a failure message.
 *
 * @example
 * ```ts
 * formatDiagnostics([{ code: 'TS2304', message: "Cannot find name 'x'.", line: 12, file: 'README.md' }]);
 * // "README.md:12 TS2304 Cannot find name 'x'."
 * ```
 */
export function formatDiagnostics(diagnostics: readonly BlockDiagnostic[]): string {
  return diagnostics
    .map((diagnostic) => {
      const where =
        diagnostic.file === undefined
          ? ''
          : `${diagnostic.file}${diagnostic.line === undefined ? '' : `:${diagnostic.line}`} `;
      return `${where}${diagnostic.code} ${diagnostic.message}`;
    })
    .join('\n');
}
