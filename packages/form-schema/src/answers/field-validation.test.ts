import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compilePattern,
  MAX_PATTERN_LENGTH,
  parseFieldInput,
  validateFieldValue,
} from './field-validation.js';
import type { MultiChoiceField, NumberField, SingleChoiceField, TextField } from './form-model.js';

const text = (overrides: Partial<TextField> = {}): TextField => ({
  kind: 'text',
  name: 'name',
  label: 'Name',
  required: true,
  ...overrides,
});
const integer: NumberField = {
  kind: 'number',
  name: 'count',
  label: 'Count',
  required: false,
  integer: true,
  minimum: 1,
  maximum: 5,
};
const channels: MultiChoiceField = {
  kind: 'multi-choice',
  name: 'channels',
  label: 'Channels',
  required: true,
  minItems: 1,
  maxItems: 2,
  options: ['a', 'b', 'c'].map((value) => ({ value, label: value })),
};

describe('validateFieldValue', () => {
  it('enforces required and lets optional fields stay empty', () => {
    expect(validateFieldValue(text(), undefined)).toBe('Name is required.');
    expect(validateFieldValue(text({ required: false }), undefined)).toBeUndefined();
  });

  it('counts string length in code points', () => {
    const field = text({ minLength: 2, maxLength: 3 });
    expect(validateFieldValue(field, 'a')).toBe('Enter at least 2 characters.');
    expect(validateFieldValue(field, '😀😀')).toBeUndefined();
    expect(validateFieldValue(field, 'abcd')).toBe('Enter at most 3 characters.');
  });

  it('checks pattern (unanchored, as JSON Schema) and each format', () => {
    expect(validateFieldValue(text({ pattern: '^[a-z]+$' }), 'Abc')).toBe('Must match the pattern ^[a-z]+$.');
    expect(validateFieldValue(text({ pattern: 'b' }), 'abc')).toBeUndefined();
    expect(validateFieldValue(text({ format: 'email' }), 'nope')).toBe('Enter a valid email address.');
    expect(validateFieldValue(text({ format: 'email' }), 'ops@example.com')).toBeUndefined();
    expect(validateFieldValue(text({ format: 'uri' }), 'not a uri')).toMatch(/absolute URI/);
    expect(validateFieldValue(text({ format: 'uri' }), 'https://example.com/x')).toBeUndefined();
    expect(validateFieldValue(text({ format: 'date' }), '2026-13-01')).toBe('Enter a date as YYYY-MM-DD.');
    expect(validateFieldValue(text({ format: 'date' }), '2026-12-01')).toBeUndefined();
    expect(validateFieldValue(text({ format: 'date-time' }), '2026-12-01')).toMatch(/date and time/);
    expect(validateFieldValue(text({ format: 'date-time' }), '2026-12-01T10:00:00+01:00')).toBeUndefined();
  });

  it("says what a narrower date-time pattern wants (here zod's z.iso.datetime(), UTC only), after the format", () => {
    const utcOnly = text({
      format: 'date-time',
      pattern: (z.iso.datetime()._zod.def as { pattern: RegExp }).pattern.source,
    });
    expect(validateFieldValue(utcOnly, '2024-01-01T10:00:00Z')).toBeUndefined();
    expect(validateFieldValue(utcOnly, '2024-01-01T10:00:00+02:00')).toBe(
      'This agent takes the time in another form: 2024-01-01T08:00:00Z (the same time in UTC) fits.',
    );
    expect(validateFieldValue(utcOnly, 'tomorrow')).toMatch(/^Enter a date and time/);
    const milliseconds = text({
      format: 'date-time',
      pattern: (z.iso.datetime({ offset: true, precision: 3 })._zod.def as { pattern: RegExp }).pattern
        .source,
    });
    expect(validateFieldValue(milliseconds, '2024-01-01T10:00:00+02:00')).toBe(
      'This agent takes the time in another form: 2024-01-01T08:00:00.000Z (the same time in UTC) fits.',
    );
  });

  it('checks number bounds and integers', () => {
    expect(validateFieldValue(integer, 0)).toBe('Must be at least 1.');
    expect(validateFieldValue(integer, 6)).toBe('Must be at most 5.');
    expect(validateFieldValue(integer, 2.5)).toBe('Enter a whole number.');
    expect(validateFieldValue(integer, 3)).toBeUndefined();
    expect(validateFieldValue({ ...integer, integer: false }, 2.5)).toBeUndefined();
  });

  it('checks multi-select membership, duplicates and item counts', () => {
    expect(validateFieldValue(channels, [])).toBe('Choose at least 1 option.');
    expect(validateFieldValue(channels, ['a', 'b', 'c'])).toBe('Choose at most 2 options.');
    expect(validateFieldValue(channels, ['z'])).toBe('Choose only offered options.');
    expect(validateFieldValue(channels, ['a', 'a'])).toBe('Choose each option once.');
    expect(validateFieldValue(channels, ['a', 'c'])).toBeUndefined();
  });

  it('rejects single-choice values that were not offered', () => {
    const field: SingleChoiceField = {
      kind: 'single-choice',
      name: 'target',
      label: 'Target',
      required: true,
      options: channels.options,
    };
    expect(validateFieldValue(field, 'z')).toBe('Choose one of the offered options.');
    expect(validateFieldValue(field, 'b')).toBeUndefined();
  });
});

describe('parseFieldInput', () => {
  it('reads numbers, treats blank as empty and reports non-numbers', () => {
    expect(parseFieldInput(integer, ' 3 ')).toEqual({ value: 3 });
    expect(parseFieldInput(integer, '')).toEqual({ value: undefined });
    const notANumber = { error: 'Enter a decimal number, such as 3, -2 or 0.25.' };
    expect(parseFieldInput(integer, 'three')).toEqual(notANumber);
    // The same plain decimal text as scripted answers: a person's stray spaces around it are forgiven.
    for (const input of ['0x3', '3e0', '+3', '03', '.5'])
      expect(parseFieldInput(integer, input)).toEqual(notANumber);
    expect(parseFieldInput(integer, '9')).toEqual({ error: 'Must be at most 5.' });
  });

  it('keeps text as typed and enforces required on empty input', () => {
    expect(parseFieldInput(text(), '  spaced ')).toEqual({ value: '  spaced ' });
    expect(parseFieldInput(text(), '')).toEqual({ error: 'Name is required.' });
  });
});

describe('compilePattern', () => {
  it('skips patterns that do not compile or are too long to evaluate safely', () => {
    expect(compilePattern('(')).toBeUndefined();
    expect(compilePattern('a'.repeat(MAX_PATTERN_LENGTH + 1))).toBeUndefined();
    expect(compilePattern('^\\p{L}+$')?.test('é')).toBe(true);
  });
});
