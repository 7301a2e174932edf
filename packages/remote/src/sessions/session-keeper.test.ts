import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { clientIdentity, type DetachedSession, isSameClient, MemorySessionKeeper } from './session-keeper.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A waiting session that records how it was ended. */
function session(connection: number) {
  const ends: Array<{ cause: string; reason: string }> = [];
  const kept: DetachedSession = { connection, end: (cause, reason) => ends.push({ cause, reason }) };
  return { kept, ends };
}

describe('clientIdentity', () => {
  it('is one rule for every transport: the bearer token presented and the normalised Origin', () => {
    const identity = clientIdentity({ authorization: 'Bearer secret', origin: 'https://Editor.example' });
    expect(
      isSameClient(
        identity,
        clientIdentity({ authorization: 'bearer  secret', origin: 'https://editor.example/' }),
      ),
    ).toBe(true);
    expect(
      isSameClient(
        identity,
        clientIdentity({ authorization: 'Bearer other', origin: 'https://editor.example' }),
      ),
    ).toBe(false);
    expect(isSameClient(identity, clientIdentity({ authorization: 'Bearer secret' }))).toBe(false);
    // A digest: nothing kept holds the token.
    expect(identity.toString('latin1')).not.toContain('secret');
  });
});

describe('MemorySessionKeeper', () => {
  it('ends a waiting session when its wait runs out, and not once its client came back', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const keeper = new MemorySessionKeeper({ maxDetached: 4, logger: silentLogger });
    const first = session(1);
    const second = session(2);
    expect(keeper.detach(first.kept, 1_000)).toBe(true);
    expect(keeper.detach(second.kept, 1_000)).toBe(true);
    expect(keeper.detachedCount).toBe(2);
    keeper.reattach(second.kept);
    vi.advanceTimersByTime(1_000);
    expect(first.ends).toEqual([{ cause: 'expired', reason: 'the client did not come back within 1000 ms' }]);
    expect(second.ends).toEqual([]);
    expect(keeper.detachedCount).toBe(0);
  });

  it('keeps at most maxDetached waiting: one more ends the oldest, counted once', () => {
    let evicted = 0;
    const keeper = new MemorySessionKeeper({
      maxDetached: 1,
      logger: silentLogger,
      onEvicted: () => (evicted += 1),
    });
    const first = session(1);
    const second = session(2);
    keeper.detach(first.kept, 60_000);
    expect(keeper.detach(second.kept, 60_000)).toBe(true);
    expect(first.ends).toEqual([
      { cause: 'evicted', reason: 'resume window cut short: more than 1 detached sessions' },
    ]);
    expect(keeper.detachedCount).toBe(1);
    expect(evicted).toBe(1);
    keeper.reattach(second.kept);
    // With a bound of 0 the session itself must go.
    const none = new MemorySessionKeeper({ maxDetached: 0, logger: silentLogger });
    const alone = session(3);
    expect(none.detach(alone.kept, 60_000)).toBe(false);
    expect(alone.ends.map((end) => end.cause)).toEqual(['evicted']);
  });

  it('remembers how the latest sessions ended, forgetting the oldest past its bound', () => {
    const keeper = new MemorySessionKeeper({ maxDetached: 1, logger: silentLogger, rememberedEnds: 2 });
    keeper.remember('a', { reason: 'expired' });
    keeper.remember('b', { reason: 'ended', close: { code: 1000, reason: 'bye' } });
    expect(keeper.endOf('a')).toEqual({ reason: 'expired' });
    keeper.remember('a', { reason: 'overflow' });
    keeper.remember('c', { reason: 'ended' });
    expect(keeper.endOf('b')).toBeUndefined();
    expect(keeper.endOf('a')).toEqual({ reason: 'overflow' });
    expect(keeper.endOf('c')).toEqual({ reason: 'ended' });
  });
});
