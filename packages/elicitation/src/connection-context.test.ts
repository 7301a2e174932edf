import { describe, expect, it } from 'vitest';
import { connectionContextOf } from './connection-context.js';

describe('connectionContextOf', () => {
  it('finds the per-connection context through an inherited member named by a connectionContextOf symbol', () => {
    const accessor = Symbol('connectionContextOf');
    const shared = { signal: new AbortController().signal };
    class Base {
      [accessor]() {
        return shared;
      }
    }
    class PerRequestContext extends Base {}
    expect(connectionContextOf(new PerRequestContext())).toBe(shared);
    expect(connectionContextOf(new PerRequestContext())).toBe(connectionContextOf(new PerRequestContext()));
  });

  it('returns undefined for objects without one (test doubles), or when the member is not a method', () => {
    expect(connectionContextOf({ request: async () => undefined })).toBeUndefined();
    expect(connectionContextOf({ [Symbol('connectionContextOf')]: 'not a function' })).toBeUndefined();
    expect(connectionContextOf({ [Symbol('connectionContextOf')]: () => null })).toBeUndefined();
  });
});
