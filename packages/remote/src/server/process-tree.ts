// Finding the descendants of a spawned process that left its process group. `setsid`, a double fork or a daemon
// escapes the group, and once its parent exits the parent-pid chain to it is gone too. What it keeps is its
// environment: every process spawned through `spawnProcessGroup` gets a random tree marker in `ACPKIT_PROCESS_TREE`,
// which its descendants inherit, and teardown looks for it in `/proc/<pid>/environ` (the environment a process was
// started with, which it cannot rewrite afterwards). Linux only; elsewhere nothing is found. A descendant started
// with a cleaned environment (`env -i`) escapes this: docs/remote-transport.md says how to contain that.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** The environment variable that carries the tree markers (colon-separated: nested trees keep their parents'). */
export const PROCESS_TREE_VARIABLE = 'ACPKIT_PROCESS_TREE';

const ENTRY_PREFIX = Buffer.from(`${PROCESS_TREE_VARIABLE}=`);

/** Whether this platform lets teardown find escaped descendants. */
const canFindEscapedDescendants = process.platform === 'linux';

/** A fresh marker, and the variable's value for a child of a process whose own value is `inherited`. */
export function newTreeMarker(inherited: string | undefined): { marker: string; value: string } {
  const marker = randomBytes(12).toString('hex');
  return { marker, value: inherited ? `${inherited}:${marker}` : marker };
}

/** The markers in one `/proc/<pid>/environ` (NUL-separated `NAME=value` entries). */
function markersIn(environ: Buffer): string[] {
  let start = environ.indexOf(ENTRY_PREFIX);
  // The variable must start an entry, not be the tail of another variable's name.
  while (start > 0 && environ[start - 1] !== 0) start = environ.indexOf(ENTRY_PREFIX, start + 1);
  if (start === -1) return [];
  const end = environ.indexOf(0, start);
  return environ
    .subarray(start + ENTRY_PREFIX.length, end === -1 ? environ.length : end)
    .toString('latin1')
    .split(':');
}

/**
 * The live processes (other than this one) whose environment carries `marker`. Unreadable entries (another user's
 * process, one that just exited, a zombie whose environment is gone) are skipped.
 */
export async function processesCarrying(marker: string): Promise<number[]> {
  if (!canFindEscapedDescendants) return [];
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return;
      try {
        if (markersIn(await readFile(`/proc/${name}/environ`)).includes(marker)) found.push(pid);
      } catch {
        // Gone, or not ours to read.
      }
    }),
  );
  return found;
}

/**
 * The live processes (other than this one) whose environment carries any of `markers`: {@link processesCarrying},
 * synchronous and in one pass over /proc for several markers, for the last moment of a process (its `'exit'`
 * handlers cannot wait for a promise).
 */
export function processesCarryingSync(markers: ReadonlySet<string>): number[] {
  if (!canFindEscapedDescendants || markers.size === 0) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      if (markersIn(readFileSync(`/proc/${name}/environ`)).some((marker) => markers.has(marker)))
        found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/**
 * Whether `pid` still runs. A process that is dying has already lost its environment (so the marker scan no longer
 * finds it) but is not yet a zombie: teardown keeps waiting for the pids it signalled until they are gone or zombies.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!canFindEscapedDescendants) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}
