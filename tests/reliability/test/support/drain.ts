// A graceful drain of one `acpremote` instance, as a rolling deploy does it: SIGTERM, then the last client leaves and
// the instance must exit 0 with its agents reaped.
import { expect } from 'vitest';
import { childPids, type RunningServer, waitFor } from './processes.js';

/** A drain under way (see {@link startDrain}). */
export interface Drain {
  /** The instance's exit code, once it exits. */
  readonly exited: Promise<number | null>;
  /** The agent processes the instance ran when the drain started. */
  readonly agentsBefore: readonly number[];
}

/**
 * Sends SIGTERM to `server` and resolves once it logged `drain started`.
 *
 * @example
 * ```ts
 * const drain = await startDrain(instance);
 * ```
 */
export async function startDrain(server: RunningServer): Promise<Drain> {
  const agentsBefore = childPids(server.child.pid!);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  await waitFor(
    () => /drain started/.test(server.stderr()),
    30_000, // a failure bound only: the line comes at once
    () => server.stderr(),
  );
  return { exited, agentsBefore };
}

/**
 * Ends the stdin of `lastClient` (a mirror, the drained instance's last client) and checks that the client exits 0,
 * then the instance exits 0 after `drain finished`, with every agent it ran at the start of the drain reaped.
 *
 * @example
 * ```ts
 * await finishDrain(instance, drain, mirror);
 * ```
 */
export async function finishDrain(
  server: RunningServer,
  drain: Drain,
  lastClient: {
    readonly child: { readonly stdin: NodeJS.WritableStream };
    readonly exited: Promise<number | null>;
  },
): Promise<void> {
  lastClient.child.stdin.end();
  expect(await lastClient.exited).toBe(0);
  expect(await drain.exited).toBe(0);
  expect(server.stderr()).toMatch(/drain finished: every connection ended/);
  expect(drain.agentsBefore.filter((pid) => childPids(server.child.pid!).includes(pid))).toEqual([]);
}
