import { describe, expect, it } from 'vitest';
import { describeRejectedValue } from './describe-value.js';

describe('describeRejectedValue', () => {
  it('names what JSON cannot show and shows the rest as JSON', () => {
    expect(describeRejectedValue(undefined)).toBe('undefined');
    expect(describeRejectedValue(() => 1)).toBe('a function');
    expect(describeRejectedValue(Number.NaN)).toBe('NaN');
    expect(describeRejectedValue(-Infinity)).toBe('-Infinity');
    expect(describeRejectedValue('20')).toBe('"20"');
    expect(describeRejectedValue({ a: [1, null] })).toBe('{"a":[1,null]}');
    expect(describeRejectedValue(10n)).toBe('10');
  });

  it('shortens long text to maxCharacters with an ellipsis', () => {
    expect(describeRejectedValue('x'.repeat(200))).toBe(`"${'x'.repeat(119)}…`);
    expect(describeRejectedValue('abcdef', { maxCharacters: 3 })).toBe('"ab…');
  });

  it('rewrites the whole text before shortening it', () => {
    const secret = `"https://user:secret@example.com/${'p'.repeat(200)}"`;
    const shown = describeRejectedValue(JSON.parse(secret), {
      rewrite: (text) => text.replace('secret', '***'),
    });
    expect(shown).toContain('user:***@');
    expect(shown).not.toContain('secret');
    expect(shown.endsWith('…')).toBe(true);
  });
});
