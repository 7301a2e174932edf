import MarkdownIt from 'markdown-it';

/** Fence languages treated as TypeScript. */
const TYPESCRIPT_LANGUAGES: ReadonlySet<string> = new Set(['ts', 'typescript', 'mts']);

/** The info-string flag that excludes a TypeScript block from type-checking: ```ts ignore. */
export const IGNORE_FLAG = 'ignore';

/** One fenced TypeScript code block of a Markdown document. */
export interface CodeBlock {
  /** Repository-relative path of the Markdown file, e.g. `packages/remote/README.md`. */
  readonly source: string;
  /** 1-based number of the block among the file's TypeScript blocks (ignored ones included), as a reader counts. */
  readonly number: number;
  /** 1-based line of the opening fence in the Markdown file. */
  readonly line: number;
  /** The code between the fences. */
  readonly code: string;
  /** True for ```ts ignore: shown to readers, never compiled. */
  readonly ignored: boolean;
}

// markdown-it is a CommonMark parser: it gets nested lists, indented fences, ~~~ fences and fences inside
// block quotes right, which a line-by-line regular expression does not.
const markdown = new MarkdownIt();

/**
 * Extracts every fenced TypeScript block (```ts, ```typescript, ```mts) of a Markdown document, in order.
 *
 * @param text - The Markdown source.
 * @param source - The repository-relative path used in reports.
 * @example
 * ```ts
 * extractTypeScriptBlocks('```ts\nconst a = 1;\n```\n', 'README.md');
 * // [{ source: 'README.md', number: 1, line: 1, code: 'const a = 1;\n', ignored: false }]
 * ```
 */
export function extractTypeScriptBlocks(text: string, source: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const token of markdown.parse(text, {})) {
    if (token.type !== 'fence' || token.map === null) continue;
    const [language = '', ...flags] = token.info.trim().split(/\s+/);
    if (!TYPESCRIPT_LANGUAGES.has(language.toLowerCase())) continue;
    blocks.push({
      source,
      number: blocks.length + 1,
      line: token.map[0] + 1,
      code: token.content,
      ignored: flags.includes(IGNORE_FLAG),
    });
  }
  return blocks;
}

/**
 * The contents of every fenced block of one language (```nginx, ```sh, …), in order.
 *
 * @example
 * ```ts
 * extractFencedCode('```nginx\nserver {}\n```\n', 'nginx'); // ['server {}\n']
 * ```
 */
export function extractFencedCode(text: string, language: string): string[] {
  return markdown
    .parse(text, {})
    .filter((token) => token.type === 'fence' && token.info.trim().split(/\s+/)[0] === language)
    .map((token) => token.content);
}

/**
 * A short human label for a block, used in test names and failure messages.
 *
 * @example
 * ```ts
 * describeBlock({ source: 'packages/remote/README.md', number: 2, line: 40, code: '', ignored: false });
 * // 'packages/remote/README.md block 2 (line 40)'
 * ```
 */
export function describeBlock(block: CodeBlock): string {
  return `${block.source} block ${block.number} (line ${block.line})`;
}
