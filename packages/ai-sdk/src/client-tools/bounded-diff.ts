// A diff a client can show for any file size: the whole old and new text when the file is small, else only the
// changed region (from the first to the last changed line, with a few lines around it). A 50 MB file edit then
// sends a few kilobytes, not 100 MB, and the diff still says where the change is.
import type { ToolCallContent } from '@agentclientprotocol/sdk';

/** Texts up to this many characters are sent whole in a diff. */
export const DEFAULT_MAX_DIFF_CHARS = 256 * 1024;
const CONTEXT_LINES = 3;

/** The changed region of `oldText` → `newText` as a diff, and the first changed line (1-based). */
export interface BoundedDiff {
  readonly content: ToolCallContent;
  readonly line: number;
  readonly cropped: boolean;
}

function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let index = 0;
  while (index < max && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

function commonSuffix(a: string, b: string, prefix: number): number {
  const max = Math.min(a.length, b.length) - prefix;
  let index = 0;
  while (index < max && a.charCodeAt(a.length - 1 - index) === b.charCodeAt(b.length - 1 - index)) index += 1;
  return index;
}

/** The index after going back `lines` line starts from `index` (0 at the start). */
function backLines(text: string, index: number, lines: number): number {
  let at = text.lastIndexOf('\n', index - 1);
  for (let count = 0; count < lines && at > 0; count += 1) at = text.lastIndexOf('\n', at - 1);
  return at < 0 ? 0 : at + 1;
}

/** The index of the end of the line `lines` lines after the one holding `index`. */
function forwardLines(text: string, index: number, lines: number): number {
  let at = text.indexOf('\n', index);
  for (let count = 0; count < lines && at >= 0; count += 1) at = text.indexOf('\n', at + 1);
  return at < 0 ? text.length : at;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

/**
 * The diff of `path` from `oldText` (`null`: a new file) to `newText`, cropped to the changed lines when either text
 * is longer than `maxChars` (the cropped diff's `_meta.acpkit` says which lines it shows).
 */
export function boundedDiff(
  path: string,
  oldText: string | null,
  newText: string,
  maxChars: number,
): BoundedDiff {
  const before = oldText ?? '';
  if (before.length <= maxChars && newText.length <= maxChars) {
    const prefix = commonPrefix(before, newText);
    return {
      content: { type: 'diff', path, oldText, newText },
      line: lineOf(before, prefix),
      cropped: false,
    };
  }
  const prefix = commonPrefix(before, newText);
  const suffix = commonSuffix(before, newText, prefix);
  const start = backLines(before, prefix, CONTEXT_LINES);
  const oldEnd = forwardLines(before, before.length - suffix, CONTEXT_LINES);
  const newEnd = forwardLines(newText, newText.length - suffix, CONTEXT_LINES);
  // A change larger than the bound itself is cut at the bound, on both sides alike.
  const oldSlice = before.slice(start, Math.min(oldEnd, start + maxChars));
  const newSlice = newText.slice(start, Math.min(newEnd, start + maxChars));
  const line = lineOf(before, start);
  return {
    content: {
      type: 'diff',
      path,
      oldText: oldText === null ? null : oldSlice,
      newText: newSlice,
      _meta: {
        acpkit: {
          cropped: true,
          firstLine: line,
          oldLength: before.length,
          newLength: newText.length,
          note: `Only the changed region is shown (from line ${line}); the file has ${before.length} characters.`,
        },
      },
    },
    line,
    cropped: true,
  };
}
