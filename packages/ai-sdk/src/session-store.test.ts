import { describe, expect, it } from 'vitest';
import { AiSdkAgentError } from './errors.js';
import { InMemorySessionStore, type StoredAiSdkSession } from './session-store.js';

const session = (sessionId: string): StoredAiSdkSession => ({
  sessionId,
  cwd: '/',
  messages: [],
  transcript: [],
  alwaysAllowedTools: [],
  updatedAt: '2026-12-01T00:00:00.000Z',
});

describe('InMemorySessionStore', () => {
  it('keeps at most maxSessions, dropping the least recently used (read or written) first', () => {
    const store = new InMemorySessionStore({ maxSessions: 2 });
    store.set(session('a'));
    store.set(session('b'));
    expect(store.get('a')?.sessionId).toBe('a');
    store.set(session('c'));
    expect(store.size).toBe(2);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBeDefined();
    expect(store.get('c')).toBeDefined();
  });

  it('replaces a session saved again', () => {
    const store = new InMemorySessionStore();
    store.set(session('a'));
    store.set({ ...session('a'), cwd: '/work' });
    expect(store.size).toBe(1);
    expect(store.get('a')?.cwd).toBe('/work');
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxSessions %s', (maxSessions) => {
    expect(() => new InMemorySessionStore({ maxSessions })).toThrow(AiSdkAgentError);
    expect(() => new InMemorySessionStore({ maxSessions })).toThrow('maxSessions must be a positive integer');
  });
});
