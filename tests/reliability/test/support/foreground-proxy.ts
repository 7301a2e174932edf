// A proxy the suite runs in the foreground (nginx, HAProxy): waited for until it listens, stopped with SIGTERM (then
// SIGKILL), its temp directory removed.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { waitForPort } from './ports.js';

/**
 * Waits until `child` listens on `port` and returns how to stop it (and remove `directory`); a child that exits or
 * never listens is stopped and reported with `log()`.
 *
 * @example
 * ```ts
 * const close = await foregroundProxy('nginx', child, port, directory, () => readErrorLog());
 * await close();
 * ```
 */
export async function foregroundProxy(
  name: string,
  child: ChildProcess,
  port: number,
  directory: string,
  log: () => string,
): Promise<() => Promise<void>> {
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 10_000, () => child.exitCode === null && child.signalCode === null);
  } catch (error) {
    const text = log();
    await close();
    throw new Error(`${name} did not start: ${(error as Error).message}\n${text}`, { cause: error });
  }
  return close;
}
