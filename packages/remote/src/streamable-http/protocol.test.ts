import { describe, expect, it } from 'vitest';
import { acceptsEventStream, isJsonContentType, parseLastEventId } from './protocol.js';

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/json-seq', false],
    ['text/plain', false],
    [undefined, false],
  ])('%s → %s', (value, expected) => expect(isJsonContentType(value)).toBe(expected));
});

describe('acceptsEventStream', () => {
  it.each([
    ['text/event-stream', true],
    ['application/json, text/event-stream;q=0.9', true],
    ['*/*', true],
    ['text/*', true],
    ['text/event-stream;q=0', false],
    ['application/json', false],
    [undefined, false],
  ])('%s → %s', (value, expected) => expect(acceptsEventStream(value)).toBe(expected));
});

describe('parseLastEventId', () => {
  it('reads an event number, null when absent, undefined when it cannot be ours', () => {
    expect(parseLastEventId(' 42 ')).toBe(42);
    expect(parseLastEventId(undefined)).toBeNull();
    expect(parseLastEventId('abc')).toBeUndefined();
    expect(parseLastEventId('1'.repeat(16))).toBeUndefined();
  });
});
