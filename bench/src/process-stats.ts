// Per-process counters from Linux /proc: CPU time (nanoseconds, from schedstat, not 10 ms ticks), read and write
// system calls, and sleeps (voluntary context switches: how often the process waited for I/O and woke again, about
// one per event-loop turn that found work). Wall-clock figures on a shared 2-core machine swing with other people's
// load; these per-message counts swing far less, and the system-call and sleep counts say how much work each
// wake-up batched, which is what moves a pipelined relay's CPU per message.
import { readdirSync, readFileSync } from 'node:fs';

/** Cumulative counters of one process (all its threads). */
export interface ProcessCounters {
  cpuNs: number;
  readCalls: number;
  writeCalls: number;
  sleeps: number;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Sum of the first field of every thread's schedstat: time on a CPU, in nanoseconds. */
function cpuNanoseconds(pid: number): number | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let total = 0;
  for (const thread of threads) {
    const stat = readText(`/proc/${pid}/task/${thread}/schedstat`);
    if (stat !== undefined) total += Number(stat.slice(0, stat.indexOf(' ')));
  }
  return total;
}

/**
 * The counters of `pid` now, or undefined when it is gone or /proc is not Linux's.
 *
 * @example
 * ```ts
 * const before = readCounters(process.pid);
 * ```
 */
export function readCounters(pid: number): ProcessCounters | undefined {
  const cpuNs = cpuNanoseconds(pid);
  const io = readText(`/proc/${pid}/io`);
  const status = readText(`/proc/${pid}/status`);
  if (cpuNs === undefined || io === undefined || status === undefined) return undefined;
  const field = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  return {
    cpuNs,
    readCalls: field(io, /^syscr:\s+(\d+)/m),
    writeCalls: field(io, /^syscw:\s+(\d+)/m),
    // The main thread's: helper threads (GC, compiler) sleep and wake on their own schedule.
    sleeps: field(status, /^voluntary_ctxt_switches:\s+(\d+)/m),
  };
}

/** `after - before`, field by field. */
export function difference(after: ProcessCounters, before: ProcessCounters): ProcessCounters {
  return {
    cpuNs: after.cpuNs - before.cpuNs,
    readCalls: after.readCalls - before.readCalls,
    writeCalls: after.writeCalls - before.writeCalls,
    sleeps: after.sleeps - before.sleeps,
  };
}

/**
 * Direct children of `pid` (from /proc), e.g. the agent a relay host spawned for a connection.
 *
 * @example
 * ```ts
 * const [agent] = childrenOf(relayHostPid);
 * ```
 */
export function childrenOf(pid: number): number[] {
  const direct = readText(`/proc/${pid}/task/${pid}/children`);
  if (direct !== undefined) return direct.trim().split(/\s+/).filter(Boolean).map(Number);
  const children: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}
