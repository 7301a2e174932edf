// CPU time of the driver and every process below it (hosts, mirror, agents), from Linux /proc. Wall-clock figures
// on a shared 2-core machine swing with other people's load; CPU time per message does not, so it is the figure to
// compare paths by when the machine is busy.
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function readStat(pid: string): { parent: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces); utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/**
 * User + system CPU milliseconds used so far by this process and all its live descendants (Linux only; returns
 * `undefined` elsewhere).
 *
 * @example
 * ```ts
 * const before = processTreeCpuMs();
 * ```
 */
export function processTreeCpuMs(): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const pid = Number(entry);
    ticks.set(pid, stat.ticks);
    children.set(stat.parent, [...(children.get(stat.parent) ?? []), pid]);
  }
  let total = 0;
  const queue = [process.pid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    total += ticks.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return (total * 1000) / TICKS_PER_SECOND;
}
