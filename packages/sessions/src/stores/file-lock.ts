// One writer per session file, across processes: an exclusive lock file (`open(…, 'wx')`) holding the writer's pid.
// A lock left by a killed writer (its pid gone) is taken over; a live one is waited for, up to a deadline.
import { open, readFile, unlink } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock is held by a live process past the deadline. */
export class LockBusyError extends Error {
  override readonly name = 'LockBusyError';
}

/**
 * Runs `task` holding the lock file `path`. Waits with backoff (1 ms doubling to 50 ms) while another live process
 * holds it, up to `timeoutMs`; then throws {@link LockBusyError}.
 */
export async function withFileLock<Result>(
  path: string,
  timeoutMs: number,
  task: () => Promise<Result>,
): Promise<Result> {
  const deadline = Date.now() + timeoutMs;
  let wait = 1;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    // A lock file without a pid yet is being written; one whose pid is gone was left by a killed writer.
    if (Number.isSafeInteger(holder) && holder > 0 && !isAlive(holder)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline) throw new LockBusyError(`${path} is held by process ${holder}`);
    await delay(wait);
    wait = Math.min(wait * 2, 50);
  }
  try {
    return await task();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
