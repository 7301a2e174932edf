// `pnpm demo` in a terminal: the person picks the deployment target with the arrow keys. Every exit path (a normal
// end, Ctrl+C in the form, SIGTERM to the demo) leaves no process behind.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Keys, PtySession, processesWithMarker } from './fixtures/client-pty.js';

const sessions: PtySession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function startDemo(): { session: PtySession; marker: string } {
  const marker = randomUUID();
  const session = new PtySession(process.execPath, ['scripts/demo.mjs'], {
    env: { ACPKIT_TEST_MARKER: marker },
  });
  sessions.push(session);
  return { session, marker };
}

describe('pnpm demo in a terminal', () => {
  it('lets the person pick Preview with the arrow keys, then exits 0 and reaps every process', {
    timeout: 120_000,
  }, async () => {
    const { session, marker } = startDemo();
    await session.waitFor('Choose a deployment target', { timeoutMs: 90_000 });
    // demo, acpremote expose, the agent it spawned, acpkit client and acpkit run are all running now.
    expect(processesWithMarker(marker).length).toBeGreaterThanOrEqual(5);
    await session.waitFor('Production — Deploy to the production environment.');
    session.type(`${Keys.up}${Keys.enter}`);
    await session.waitFor('Selected: preview', { from: session.typedAt });
    expect((await session.exited).exitCode).toBe(0);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('cancels the form on Ctrl+C, reports it, and still exits cleanly', { timeout: 120_000 }, async () => {
    const { session, marker } = startDemo();
    await session.waitFor('Choose a deployment target', { timeoutMs: 90_000 });
    session.type(Keys.interrupt);
    await session.waitFor('The choice was cancelled.', { from: session.typedAt });
    expect((await session.exited).exitCode).toBe(0);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('stops every process when the demo itself gets SIGTERM', { timeout: 120_000 }, async () => {
    const { session, marker } = startDemo();
    await session.waitFor('Choose a deployment target', { timeoutMs: 90_000 });
    process.kill(session.pid, 'SIGTERM');
    expect((await session.exited).exitCode).toBe(143);
    expect(processesWithMarker(marker)).toEqual([]);
  });
});
