import { afterEach, describe, expect, it } from 'vitest';
import { routeConsoleToLogger } from './console-capture.js';

describe('routeConsoleToLogger', () => {
  let restore = () => {};
  afterEach(() => restore());

  it('sends each console call to the logger as one formatted message at its level, then restores', () => {
    const calls: Array<[string, string]> = [];
    const original = console.error;
    restore = routeConsoleToLogger({
      info: (message) => calls.push(['info', message]),
      warn: (message) => calls.push(['warn', message]),
      error: (message) => calls.push(['error', message]),
    });
    console.error('Got response to unknown request', '7\nforged');
    console.log('count %d', 3);
    console.warn({ a: 1 });
    restore();
    expect(console.error).toBe(original);
    expect(calls).toEqual([
      ['error', 'Got response to unknown request 7\nforged'],
      ['info', 'count 3'],
      ['warn', '{ a: 1 }'],
    ]);
  });
});
