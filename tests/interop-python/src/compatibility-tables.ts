import { readFileSync } from 'node:fs';

/** One row of a Markdown table: its cells, trimmed, in column order. */
export type TableRow = readonly string[];

/**
 * The body rows of the Markdown table that follows the marker `<!-- interop-table: NAME -->` in `file`. The
 * compatibility sections of the docs mark their tables this way so the interop tests can hold them to what they
 * measure.
 */
export function readMarkedTable(file: string, name: string): TableRow[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const marker = lines.findIndex((line) => line.trim() === `<!-- interop-table: ${name} -->`);
  if (marker === -1) throw new Error(`${file} has no <!-- interop-table: ${name} --> marker`);
  const tableLines: string[] = [];
  for (const line of lines.slice(marker + 1)) {
    if (line.trim() === '' && tableLines.length === 0) continue;
    if (!line.trim().startsWith('|')) break;
    tableLines.push(line.trim());
  }
  if (tableLines.length < 2) throw new Error(`the ${name} table in ${file} has no rows`);
  // Skip the header and the |---| separator.
  return tableLines.slice(2).map((line) =>
    line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

/** The contents of every `code span` in a cell, in order. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
}

/**
 * The message a `mirror-refusals` row of docs/remote-transport.md quotes (the last code span of its "What it says"
 * cell), with its placeholders filled in, so a test can hold the doc to what the mirror really prints.
 */
export function quotedRefusal(
  file: string,
  mirror: 'ours' | 'Python',
  token: 'none' | 'wrong',
  values: { readonly url?: string; readonly variable?: string } = {},
): string {
  const row = readMarkedTable(file, 'mirror-refusals').find(
    ([mirrorCell = '', tokenCell = '']) => mirrorCell.startsWith(mirror) && tokenCell.startsWith(token),
  );
  const quoted = codeSpans(row?.[2] ?? '').at(-1);
  if (quoted === undefined) throw new Error(`no mirror-refusals row for ${mirror} with ${token} token`);
  return quoted
    .replaceAll('<url>', values.url ?? '<url>')
    .replaceAll('<variable>', values.variable ?? '<variable>');
}
