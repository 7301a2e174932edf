import { describe, expect, it } from 'vitest';
import { diffLines, sideBySide } from './line-diff.js';

describe('diffLines', () => {
  it('keeps common lines as context and puts removed lines before the added ones that replace them', () => {
    const lines = diffLines('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    expect(lines.map((line) => `${line.type[0]}${line.text}`)).toEqual(['sa', 'rb', 'aB', 'sc', 'sd', 'ae']);
    expect(lines[1]).toMatchObject({ oldNumber: 2 });
    expect(lines[2]).toMatchObject({ newNumber: 2 });
  });

  it('treats a missing old text as a new file', () => {
    expect(diffLines(null, 'x\ny').map((line) => line.type)).toEqual(['added', 'added']);
  });

  it('gives up the search past its bound but still lists every line', () => {
    const before = Array.from({ length: 3000 }, (_, index) => `old ${index}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, index) => `new ${index}`).join('\n');
    const lines = diffLines(before, after);
    expect(lines).toHaveLength(6000);
    expect(lines[0]?.type).toBe('removed');
  });
});

describe('sideBySide', () => {
  it('faces removed lines with the added lines that replace them', () => {
    const rows = sideBySide(diffLines('a\nb\nc', 'a\nB\nC\nD'));
    expect(rows.map((row) => [row.left?.text ?? '', row.right?.text ?? ''])).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      ['c', 'C'],
      ['', 'D'],
    ]);
  });
});
