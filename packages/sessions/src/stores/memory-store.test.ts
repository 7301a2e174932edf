import { describe, expect, it } from 'vitest';
import { describeSessionStoreContract } from '../testing.js';
import { memorySessionStore } from './memory-store.js';

describeSessionStoreContract('memory', (options) => memorySessionStore(options));

describe('memorySessionStore bounds', () => {
  it('drops the least recently used session past maxSessions (a read counts as a use)', async () => {
    const store = memorySessionStore({ maxSessions: 2 });
    await store.save({ sessionId: 'a', expectedVersion: 0, cwd: '/w', append: [] });
    await store.save({ sessionId: 'b', expectedVersion: 0, cwd: '/w', append: [] });
    await store.get('a');
    await store.save({ sessionId: 'c', expectedVersion: 0, cwd: '/w', append: [] });
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBeDefined();
    expect(await store.get('c')).toBeDefined();
  });

  it('drops least recently used sessions past maxTotalBytes, never the one just saved', async () => {
    const store = memorySessionStore({ maxTotalBytes: 3_000 });
    for (const sessionId of ['a', 'b', 'c']) {
      await store.save({ sessionId, expectedVersion: 0, cwd: '/w', append: ['x'.repeat(1_200)] });
    }
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeDefined();
    expect(await store.get('c')).toBeDefined();
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxSessions %s', (maxSessions) => {
    expect(() => memorySessionStore({ maxSessions: maxSessions as number })).toThrow(
      'maxSessions must be a positive integer',
    );
  });
});
