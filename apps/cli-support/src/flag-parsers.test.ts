import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  collectRepeatable,
  parseNonNegativeInteger,
  parseNonNegativeSecondsToMilliseconds,
  parsePort,
  parsePositiveInteger,
  parseSecondsToMilliseconds,
} from './flag-parsers.js';

describe('parsePort', () => {
  it.each([
    ['0', 0],
    ['8080', 8080],
    ['65535', 65_535],
  ])('accepts %s', (text, port) => {
    expect(parsePort(text)).toBe(port);
  });

  it.each(['-1', '65536', '1e3', '', 'http', '80.5', '0x50'])('rejects %j', (text) => {
    expect(() => parsePort(text)).toThrow(InvalidArgumentError);
  });
});

describe('parsePositiveInteger', () => {
  it('accepts a positive integer', () => {
    expect(parsePositiveInteger('16777216')).toBe(16_777_216);
  });

  it.each(['0', '-5', '1.5', 'lots', '99999999999999999999'])('rejects %j', (text) => {
    expect(() => parsePositiveInteger(text)).toThrow(InvalidArgumentError);
  });
});

describe('parseNonNegativeInteger', () => {
  it('accepts 0 and a positive integer', () => {
    expect(parseNonNegativeInteger('0')).toBe(0);
    expect(parseNonNegativeInteger('64')).toBe(64);
  });

  it.each(['-1', '1.5', '', 'none'])('rejects %j', (text) => {
    expect(() => parseNonNegativeInteger(text)).toThrow(InvalidArgumentError);
  });
});

describe('parseSecondsToMilliseconds', () => {
  it.each([
    ['5', 5000],
    ['2.5', 2500],
    ['.25', 250],
  ])('converts %s seconds', (text, milliseconds) => {
    expect(parseSecondsToMilliseconds(text)).toBe(milliseconds);
  });

  it.each(['0', '-1', 'Infinity', 'NaN', '', '1s'])('rejects %j', (text) => {
    expect(() => parseSecondsToMilliseconds(text)).toThrow(InvalidArgumentError);
  });
});

describe('parseNonNegativeSecondsToMilliseconds', () => {
  it.each([
    ['0', 0],
    ['30', 30_000],
    ['0.5', 500],
  ])('converts %s seconds', (text, milliseconds) => {
    expect(parseNonNegativeSecondsToMilliseconds(text)).toBe(milliseconds);
  });

  it.each(['-1', 'Infinity', '', '1e3', '30s', '1m'])('rejects %j', (text) => {
    expect(() => parseNonNegativeSecondsToMilliseconds(text)).toThrow(InvalidArgumentError);
  });
});

describe('collectRepeatable', () => {
  it('appends to the previous values', () => {
    expect(collectRepeatable('b', collectRepeatable('a', undefined))).toEqual(['a', 'b']);
  });
});
