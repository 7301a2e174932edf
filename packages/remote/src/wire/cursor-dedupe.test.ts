// Cursors compared as opaque strings: a message sent again is handed on once, and the memory stays bounded.
import { describe, expect, it } from 'vitest';
import { CursorDedupe, DEDUPE_CURSORS } from './cursor-dedupe.js';

describe('CursorDedupe', () => {
  it('passes each cursor once and counts the repeats', () => {
    const dedupe = new CursorDedupe();
    expect(['a', 'b', 'a', 'c', 'b'].map((cursor) => dedupe.firstTime(cursor))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(dedupe.repeats).toBe(2);
  });

  it('remembers the latest cursors only', () => {
    const dedupe = new CursorDedupe();
    for (let index = 0; index <= DEDUPE_CURSORS; index += 1) dedupe.firstTime(String(index));
    // The oldest one fell out of the ring; the newest is still known.
    expect(dedupe.firstTime('0')).toBe(true);
    expect(dedupe.firstTime(String(DEDUPE_CURSORS))).toBe(false);
  });
});
