import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { type OpenSession, OpenSessions } from './open-sessions.js';

class FakeSession implements OpenSession {
  isRunning = false;
  closed = 0;
  constructor(readonly sessionId: string) {}
  async close(): Promise<void> {
    this.closed += 1;
  }
}

async function open(sessions: OpenSessions<FakeSession>, sessionId: string): Promise<FakeSession> {
  await sessions.makeRoom(sessionId);
  const session = new FakeSession(sessionId);
  await sessions.add(session);
  return session;
}

describe('OpenSessions', () => {
  it('closes the least recently used idle session to make room, never a running one', async () => {
    const sessions = new OpenSessions<FakeSession>(2);
    const first = await open(sessions, 'a');
    const second = await open(sessions, 'b');
    first.isRunning = true;
    await open(sessions, 'c');
    expect(second.closed).toBe(1);
    expect(first.closed).toBe(0);
    expect(sessions.find('b')).toBeUndefined();
    expect(sessions.size).toBe(2);
    // find makes a session the most recently used: 'c' goes next.
    first.isRunning = false;
    sessions.find('a');
    await open(sessions, 'd');
    expect(sessions.find('c')).toBeUndefined();
    expect(sessions.find('a')).toBe(first);
  });

  it('refuses one more with -32600 when every session at the limit is running a prompt', async () => {
    const sessions = new OpenSessions<FakeSession>(1);
    const running = await open(sessions, 'a');
    running.isRunning = true;
    const refused = await sessions.makeRoom('b').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestError);
    expect(refused).toMatchObject({ code: -32600, data: { maxOpenSessions: 1 } });
    expect(running.closed).toBe(0);
  });

  it('replaces an open copy of the same session, closing it once', async () => {
    const sessions = new OpenSessions<FakeSession>(5);
    const old = await open(sessions, 'a');
    const fresh = await open(sessions, 'a');
    expect(old.closed).toBe(1);
    expect(sessions.find('a')).toBe(fresh);
    // A copy added meanwhile (without makeRoom) is closed by add.
    const racing = new FakeSession('a');
    await sessions.add(racing);
    expect(fresh.closed).toBe(1);
    expect(sessions.size).toBe(1);
  });

  it('closes one session or all of them, each once', async () => {
    const sessions = new OpenSessions<FakeSession>(5);
    const a = await open(sessions, 'a');
    const b = await open(sessions, 'b');
    expect(await sessions.close('a')).toBe(true);
    expect(await sessions.close('a')).toBe(false);
    await sessions.closeAll();
    expect([a.closed, b.closed]).toEqual([1, 1]);
    expect(sessions.size).toBe(0);
  });
});
