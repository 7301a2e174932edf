// A line diff of a tool's `diff` content (old text to new text), for the unified and side-by-side views.

export interface DiffLine {
  readonly type: 'same' | 'removed' | 'added';
  readonly text: string;
  readonly oldNumber?: number;
  readonly newNumber?: number;
}

/** Above this many line pairs the diff is not searched for common lines: everything old is removed, new added. */
const MAX_CELLS = 4_000_000;

/**
 * The lines of `oldText` and `newText` with the longest common subsequence kept as context (a plain LCS table, bounded
 * by {@link MAX_CELLS}; common prefix and suffix are taken first, so a small edit in a large file stays cheap).
 */
export function diffLines(oldText: string | null | undefined, newText: string): DiffLine[] {
  const before = oldText ? oldText.split('\n') : [];
  const after = newText.split('\n');
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const lines: DiffLine[] = [];
  for (let index = 0; index < start; index++) {
    lines.push({ type: 'same', text: before[index] as string, oldNumber: index + 1, newNumber: index + 1 });
  }
  const middleBefore = before.slice(start, endBefore);
  const middleAfter = after.slice(start, endAfter);
  lines.push(...diffMiddle(middleBefore, middleAfter, start));
  for (let index = 0; index < before.length - endBefore; index++) {
    lines.push({
      type: 'same',
      text: before[endBefore + index] as string,
      oldNumber: endBefore + index + 1,
      newNumber: endAfter + index + 1,
    });
  }
  return lines;
}

function diffMiddle(before: string[], after: string[], offset: number): DiffLine[] {
  const rows = before.length;
  const columns = after.length;
  const lines: DiffLine[] = [];
  if (rows * columns > MAX_CELLS) {
    for (const [index, text] of before.entries())
      lines.push({ type: 'removed', text, oldNumber: offset + index + 1 });
    for (const [index, text] of after.entries())
      lines.push({ type: 'added', text, newNumber: offset + index + 1 });
    return lines;
  }
  // lengths[i][j]: LCS length of before[i..] and after[j..], in one flat array.
  const width = columns + 1;
  const lengths = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      lengths[i * width + j] =
        before[i] === after[j]
          ? (lengths[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && before[i] === after[j]) {
      lines.push({
        type: 'same',
        text: before[i] as string,
        oldNumber: offset + i + 1,
        newNumber: offset + j + 1,
      });
      i++;
      j++;
    } else if (
      i < rows &&
      (j === columns || (lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number))
    ) {
      // Removed lines come before the added ones that replace them, as unified diffs read.
      lines.push({ type: 'removed', text: before[i] as string, oldNumber: offset + i + 1 });
      i++;
    } else {
      lines.push({ type: 'added', text: after[j] as string, newNumber: offset + j + 1 });
      j++;
    }
  }
  return lines;
}

/** Rows of the side-by-side view: removed lines face the added lines that replace them. */
export function sideBySide(lines: readonly DiffLine[]): { left?: DiffLine; right?: DiffLine }[] {
  const rows: { left?: DiffLine; right?: DiffLine }[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as DiffLine;
    if (line.type === 'same') {
      rows.push({ left: line, right: line });
      index++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (index < lines.length && (lines[index] as DiffLine).type === 'removed')
      removed.push(lines[index++] as DiffLine);
    while (index < lines.length && (lines[index] as DiffLine).type === 'added')
      added.push(lines[index++] as DiffLine);
    for (let row = 0; row < Math.max(removed.length, added.length); row++) {
      const left = removed[row];
      const right = added[row];
      rows.push({ ...(left ? { left } : {}), ...(right ? { right } : {}) });
    }
  }
  return rows;
}
