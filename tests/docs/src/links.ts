import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt();

/** One link of a Markdown document: its target as written and the 1-based line it is on. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/**
 * Every link (`[text](target)`) of a Markdown document, code spans and fences excluded, in order.
 *
 * @example
 * ```ts
 * markdownLinks('See [the guide](docs/cli.md#exit-codes).'); // [{ target: 'docs/cli.md#exit-codes', line: 1 }]
 * ```
 */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const block of markdown.parse(text, {})) {
    if (block.type !== 'inline' || block.map === null) continue;
    for (const token of block.children ?? []) {
      const target = token.type === 'link_open' ? token.attrGet('href') : null;
      if (target !== null) links.push({ target, line: block.map[0] + 1 });
    }
  }
  return links;
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation other than `-` and `_` removed, spaces as `-`.
 *
 * @example
 * ```ts
 * headingAnchor('Why `@acpkit/compat-1.6` exists'); // 'why-acpkitcompat-16-exists'
 * ```
 */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * The anchors of every heading of a Markdown document (a repeated heading gets `-1`, `-2`, … as on GitHub).
 *
 * @example
 * ```ts
 * headingAnchors('# A\n## B\n## B\n'); // Set { 'a', 'b', 'b-1' }
 * ```
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const tokens = markdown.parse(text, {});
  for (const [index, token] of tokens.entries()) {
    if (token.type !== 'heading_open') continue;
    const base = headingAnchor(tokens[index + 1]?.content ?? '');
    let anchor = base;
    for (let count = 1; anchors.has(anchor); count += 1) anchor = `${base}-${count}`;
    anchors.add(anchor);
  }
  return anchors;
}
