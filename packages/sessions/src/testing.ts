/**
 * `@acpkit/sessions/testing`: the contract tests every session store passes (memory, file, SQLite, Postgres), for
 * vitest. Run them against a store you write yourself to hold it to the same contract. Needs `vitest` installed.
 */
import { describe, expect, it } from 'vitest';
import type { SessionStore } from './contract.js';
import { SessionStoreError, type SessionStoreErrorCode } from './errors.js';

/**
 * Makes a fresh, empty store for one test (a new directory, database file or schema). The contract tests close it.
 *
 * @example
 * ```ts
 * import { memorySessionStore } from '@acpkit/sessions';
 * import type { SessionStoreFactory } from '@acpkit/sessions/testing';
 *
 * const factory: SessionStoreFactory = (options) => memorySessionStore(options);
 * ```
 */
export type SessionStoreFactory = (options: {
  maxSessionBytes?: number;
}) => SessionStore | Promise<SessionStore>;

async function refusal(promise: Promise<unknown>, code: SessionStoreErrorCode): Promise<SessionStoreError> {
  try {
    await promise;
  } catch (error) {
    expect(SessionStoreError.isInstance(error), String(error)).toBe(true);
    expect((error as SessionStoreError).code).toBe(code);
    return error as SessionStoreError;
  }
  throw new Error(`expected a ${code} refusal, but the call succeeded`);
}

const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, second)).toISOString();

/**
 * Registers the session store contract tests (a vitest `describe` named `name`).
 *
 * @example
 * ```ts
 * import { memorySessionStore } from '@acpkit/sessions';
 * import { describeSessionStoreContract } from '@acpkit/sessions/testing';
 *
 * describeSessionStoreContract('memory', (options) => memorySessionStore(options));
 * ```
 */
export function describeSessionStoreContract(name: string, factory: SessionStoreFactory): void {
  const withStore = (options: { maxSessionBytes?: number }, test: (store: SessionStore) => Promise<void>) => {
    return async () => {
      const store = await factory(options);
      try {
        await test(store);
      } finally {
        await store.close();
      }
    };
  };

  describe(`session store contract: ${name}`, () => {
    it(
      'returns undefined for a session it does not hold',
      withStore({}, async (store) => {
        expect(await store.get('missing')).toBeUndefined();
      }),
    );

    it(
      'creates a session at version 1 and appends each save after the stored entries',
      withStore({}, async (store) => {
        const first = await store.save({
          sessionId: 's1',
          expectedVersion: 0,
          cwd: '/work',
          title: 'Fix the build',
          state: { mode: 'ask', allowed: ['read'] },
          append: [{ role: 'user', content: 'one' }],
          updatedAt: at(1),
        });
        expect(first).toMatchObject({ version: 1, updatedAt: at(1) });
        const second = await store.save({
          sessionId: 's1',
          expectedVersion: 1,
          cwd: '/elsewhere',
          append: [{ role: 'assistant', content: 'two' }, 'three'],
          updatedAt: at(2),
        });
        expect(second.version).toBe(2);
        expect(second.bytes).toBeGreaterThan(first.bytes);
        const stored = await store.get('s1');
        expect(stored).toEqual({
          sessionId: 's1',
          cwd: '/elsewhere',
          title: 'Fix the build',
          createdAt: at(1),
          updatedAt: at(2),
          version: 2,
          state: { mode: 'ask', allowed: ['read'] },
          entries: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }, 'three'],
          bytes: second.bytes,
        });
        await store.save({
          sessionId: 's1',
          expectedVersion: 2,
          cwd: '/elsewhere',
          title: null,
          state: { mode: 'code' },
          append: [],
          updatedAt: at(3),
        });
        expect(await store.get('s1')).toMatchObject({ title: null, state: { mode: 'code' }, version: 3 });
      }),
    );

    it(
      'keeps binary parts, every byte value, and text JSON escapes',
      withStore({}, async (store) => {
        const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
        const text = 'nul \u0000, quote ", newline \n, emoji 🚀, lone \ud800';
        await store.save({
          sessionId: 'bin',
          expectedVersion: 0,
          cwd: '/work',
          state: { thumbnail: bytes.subarray(10, 20) },
          append: [
            {
              role: 'user',
              content: [
                { type: 'image', image: bytes, mediaType: 'image/png' },
                { type: 'text', text },
              ],
            },
          ],
        });
        const stored = await store.get('bin');
        if (stored === undefined) throw new Error('the session was not stored');
        const part = (stored.entries[0] as { content: [{ image: Uint8Array }, { text: string }] }).content;
        expect(part[0].image).toBeInstanceOf(Uint8Array);
        expect([...part[0].image]).toEqual([...bytes]);
        expect(part[1].text).toBe(text);
        expect([...(stored.state.thumbnail as Uint8Array)]).toEqual([...bytes.subarray(10, 20)]);
      }),
    );

    it(
      'refuses a stale write (two writers of one session): nothing is merged or overwritten',
      withStore({}, async (store) => {
        await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['a'] });
        await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['b'] });
        const error = await refusal(
          store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['c'] }),
          'STALE_WRITE',
        );
        expect(error.details).toMatchObject({ sessionId: 's', expectedVersion: 1, actualVersion: 2 });
        await refusal(
          store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['d'] }),
          'STALE_WRITE',
        );
        expect((await store.get('s'))?.entries).toEqual(['a', 'b']);
      }),
    );

    it(
      'lets exactly one of two concurrent saves of the same version through',
      withStore({}, async (store) => {
        await store.save({ sessionId: 'race', expectedVersion: 0, cwd: '/w', append: ['start'] });
        const results = await Promise.allSettled(
          ['left', 'right'].map((entry) =>
            store.save({ sessionId: 'race', expectedVersion: 1, cwd: '/w', append: [entry] }),
          ),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
        expect((rejected.reason as SessionStoreError).code).toBe('STALE_WRITE');
        const stored = await store.get('race');
        expect(stored?.version).toBe(2);
        expect(stored?.entries).toHaveLength(2);
      }),
    );

    it(
      'refuses to extend a session it does not hold',
      withStore({}, async (store) => {
        await refusal(
          store.save({ sessionId: 'gone', expectedVersion: 4, cwd: '/w', append: [] }),
          'SESSION_NOT_FOUND',
        );
        expect(await store.get('gone')).toBeUndefined();
      }),
    );

    it(
      'refuses a save past maxSessionBytes and keeps the stored session as it was',
      withStore({ maxSessionBytes: 2_000 }, async (store) => {
        expect(store.maxSessionBytes).toBe(2_000);
        await store.save({ sessionId: 'big', expectedVersion: 0, cwd: '/w', append: ['x'.repeat(900)] });
        const error = await refusal(
          store.save({ sessionId: 'big', expectedVersion: 1, cwd: '/w', append: ['y'.repeat(1_500)] }),
          'SESSION_TOO_LARGE',
        );
        expect(error.details).toMatchObject({ sessionId: 'big', maxSessionBytes: 2_000 });
        expect((await store.get('big'))?.entries).toEqual(['x'.repeat(900)]);
        await refusal(
          store.save({ sessionId: 'huge', expectedVersion: 0, cwd: '/w', append: ['z'.repeat(5_000)] }),
          'SESSION_TOO_LARGE',
        );
        expect(await store.get('huge')).toBeUndefined();
        // Still writable below the bound.
        await store.save({ sessionId: 'big', expectedVersion: 1, cwd: '/w', append: ['ok'] });
      }),
    );

    it(
      'lists newest first, by cwd, one page at a time, with title and updatedAt',
      withStore({}, async (store) => {
        const sessions = [
          { id: 'a', cwd: '/one', second: 1 },
          { id: 'b', cwd: '/two', second: 2 },
          { id: 'c', cwd: '/one', second: 3 },
          { id: 'd', cwd: '/one', second: 3 },
          { id: 'e', cwd: '/one', second: 5 },
          { id: 'f', cwd: '/two', second: 6 },
          { id: 'g', cwd: '/one', second: 7 },
        ];
        for (const { id, cwd, second } of sessions) {
          await store.save({
            sessionId: id,
            expectedVersion: 0,
            cwd,
            title: `title ${id}`,
            append: [],
            updatedAt: at(second),
          });
        }
        if (store.list === undefined) throw new Error('the contract needs list');
        const all = await store.list({ limit: 100 });
        expect(all.sessions.map((session) => session.sessionId)).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
        expect(all.nextCursor).toBeUndefined();
        expect(all.sessions[0]).toEqual({
          sessionId: 'g',
          cwd: '/one',
          title: 'title g',
          createdAt: at(7),
          updatedAt: at(7),
          version: 1,
        });
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.list({ cwd: '/one', cursor, limit: 2 });
          expect(page.sessions.length).toBeLessThanOrEqual(2);
          seen.push(...page.sessions.map((session) => session.sessionId));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        expect(seen).toEqual(['g', 'e', 'd', 'c', 'a']);
        // A save moves a session to the front.
        await store.save({
          sessionId: 'a',
          expectedVersion: 1,
          cwd: '/one',
          append: ['x'],
          updatedAt: at(9),
        });
        expect((await store.list({ cwd: '/one', limit: 1 })).sessions[0]?.sessionId).toBe('a');
        expect((await store.list({ cwd: '/none' })).sessions).toEqual([]);
        await refusal(store.list({ cursor: 'not-a-cursor' }), 'INVALID_CURSOR');
        await refusal(store.list({ limit: 0 }), 'INVALID_OPTION');
      }),
    );

    it(
      'deletes a session: gone from get and list, and a second delete says there was none',
      withStore({}, async (store) => {
        await store.save({ sessionId: 'd1', expectedVersion: 0, cwd: '/w', append: ['a'] });
        await store.save({ sessionId: 'd2', expectedVersion: 0, cwd: '/w', append: ['b'] });
        if (store.delete === undefined || store.list === undefined)
          throw new Error('the contract needs delete and list');
        expect(await store.delete('d1')).toBe(true);
        expect(await store.delete('d1')).toBe(false);
        expect(await store.get('d1')).toBeUndefined();
        expect((await store.list()).sessions.map((session) => session.sessionId)).toEqual(['d2']);
        // A deleted session can be created again from scratch.
        await store.save({ sessionId: 'd1', expectedVersion: 0, cwd: '/w', append: ['again'] });
        expect((await store.get('d1'))?.entries).toEqual(['again']);
      }),
    );

    it(
      'treats session ids as untrusted: hostile ids are just distinct sessions, bad ones are refused',
      withStore({}, async (store) => {
        const hostile = [
          '../../../../etc/passwd',
          '/absolute/path',
          'a/../b',
          '..',
          '.',
          'back\\slash',
          "quote'; DROP TABLE sessions; --",
          'CON',
          '🚀 émoji',
          'x'.repeat(1_024),
        ];
        for (const [index, sessionId] of hostile.entries()) {
          await store.save({ sessionId, expectedVersion: 0, cwd: '/w', append: [index] });
        }
        for (const [index, sessionId] of hostile.entries()) {
          expect((await store.get(sessionId))?.entries).toEqual([index]);
        }
        expect((await store.list?.({ limit: 100 }))?.sessions).toHaveLength(hostile.length);
        for (const bad of ['', 'x'.repeat(1_025), 'nul\u0000inside', 42, null]) {
          await refusal(store.get(bad as string), 'INVALID_SESSION_ID');
          await refusal(
            store.save({ sessionId: bad as string, expectedVersion: 0, cwd: '/w', append: [] }),
            'INVALID_SESSION_ID',
          );
        }
        await refusal(
          store.save({ sessionId: 'ok', expectedVersion: -1, cwd: '/w', append: [] }),
          'INVALID_WRITE',
        );
        await refusal(
          store.save({ sessionId: 'ok', expectedVersion: 0, cwd: '', append: [] }),
          'INVALID_WRITE',
        );
        await refusal(
          store.save({ sessionId: 'ok', expectedVersion: 0, cwd: '/w', title: 'a\u0000b', append: [] }),
          'INVALID_WRITE',
        );
      }),
    );

    it('refuses every call once closed', async () => {
      const store = await factory({});
      await store.close();
      await refusal(store.get('s'), 'STORE_CLOSED');
      await refusal(
        store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: [] }),
        'STORE_CLOSED',
      );
    });
  });
}
