import { OptionError } from '@acpkit/errors';
import { describe, expect, it } from 'vitest';
import { SessionStoreError, SessionStoreOptionError } from '../errors.js';
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

  it('names the refused option in fields, as an OptionError that is also a SessionStoreError', async () => {
    const store = memorySessionStore();
    const refused = await Promise.resolve()
      .then(() => store.list?.({ limit: 0 }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(SessionStoreOptionError.isInstance(refused)).toBe(true);
    expect(OptionError.isInstance(refused)).toBe(true);
    expect(SessionStoreError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'INVALID_OPTION',
      option: 'limit',
      received: '0',
      details: { option: 'limit' },
    });
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxSessions %s', (maxSessions) => {
    expect(() => memorySessionStore({ maxSessions: maxSessions as number })).toThrow(
      'maxSessions must be a positive integer',
    );
  });
});
