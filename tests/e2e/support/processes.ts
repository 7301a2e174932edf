import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { type ProcessGroupChild, spawnProcessGroup } from '@acpkit/remote';
import { cliPaths, repositoryRoot } from './paths.js';

/** How a spawned process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A spawned child with its output collected and helpers to wait on it. */
export interface SpawnedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Everything written to stdout so far (empty when stdout is consumed by a JSON-RPC client instead). */
  stdout(): string;
  /** Resolves with the first stderr match of `pattern` (waits for more output until the process exits). */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited (its output may still be in flight; see `closed`). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Resolves when the process has exited and its stdio pipes are closed, so `stdout()`/`stderr()` are complete.
   * Only use it for processes whose children cannot hold the pipes open.
   */
  readonly closed: Promise<ProcessExit>;
}

/** Options of {@link spawnProcess}. */
export interface SpawnProcessOptions {
  readonly cwd?: string;
  /** Merged over `process.env`. */
  readonly env?: Record<string, string | undefined>;
  /**
   * Collect stdout as text (default true). Pass false when a JSON-RPC client reads `child.stdout` itself.
   */
  readonly collectStdout?: boolean;
}

/** Every process spawned through this module, with the product's process-group teardown for {@link reapAll}. */
const spawned = new Map<SpawnedProcess, ProcessGroupChild>();

/**
 * Spawns `command` in its own process group with `@acpkit/remote`'s `spawnProcessGroup` (so teardown reaches
 * everything it started, agents in their own groups included) and registers it for {@link reapAll}.
 */
export function spawnProcess(
  command: string,
  args: readonly string[],
  options: SpawnProcessOptions = {},
): SpawnedProcess {
  const group = spawnProcessGroup([command, ...args], {
    cwd: options.cwd ?? repositoryRoot,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    terminateTimeoutMs: 2_000,
  });
  const child = group.process;
  if (child.pid === undefined) throw new Error(`could not spawn ${command}`);
  let stderrText = '';
  let stdoutText = '';
  const stderrListeners = new Set<() => void>();
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrText += chunk;
    for (const listener of stderrListeners) listener();
  });
  if (options.collectStdout !== false) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdoutText += chunk;
    });
  }
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const closed = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  // stderr is complete only once its pipe has closed (after 'exit', data can still be in flight).
  let stderrEnded = false;
  child.stderr?.once('close', () => {
    stderrEnded = true;
    for (const listener of stderrListeners) listener();
  });
  const processHandle: SpawnedProcess = {
    child,
    pid: child.pid,
    stderr: () => stderrText,
    stdout: () => stdoutText,
    exited,
    closed,
    waitForStderr: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = stderrText.match(pattern);
          if (match) {
            stderrListeners.delete(check);
            resolve(match);
          } else if (stderrEnded) {
            stderrListeners.delete(check);
            reject(new Error(`stderr closed before it matched ${pattern}; stderr:\n${stderrText}`));
          }
        };
        stderrListeners.add(check);
        check();
      }),
  };
  spawned.set(processHandle, group);
  return processHandle;
}

/**
 * `stderr` without `acpkit client`'s notice that the agent is slow to answer `initialize`: on a loaded machine an
 * agent that imports a framework (LangChain, the AI SDK) may take more than the notice's few seconds to start, which is
 * what the notice is for, not a fault of the run under test.
 */
export function withoutSlowStartNotice(stderr: string): string {
  return stderr.replace(
    /^Waiting for the agent to answer initialize… \(giving up after [\d.]+ s; --initialize-timeout changes that\)\n/m,
    '',
  );
}

/** Spawns a built CLI (`acpremote` or `acpkit`) with `node`. */
export function spawnCli(
  cli: keyof typeof cliPaths,
  args: readonly string[],
  options: SpawnProcessOptions = {},
): SpawnedProcess {
  return spawnProcess(process.execPath, [cliPaths[cli], ...args], options);
}

/** Matches the serve/expose banner and captures the WebSocket URL and port. */
export const BANNER_PATTERN = /Serving ACP WebSocket at (ws:\/\/[^\s:]+:(\d+)(\/\S*))\n/;

/** Waits for the serve/expose banner and returns the real URL and port. */
export async function waitForBanner(
  server: SpawnedProcess,
): Promise<{ url: string; port: number; origin: string }> {
  const match = await server.waitForStderr(BANNER_PATTERN);
  const url = match[1] as string;
  return { url, port: Number(match[2]), origin: new URL(url).origin.replace(/^ws/, 'http') };
}

/** Whether a pid is a live (non-zombie) process. Linux: reads `/proc`. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return processState(stat) !== 'Z';
  } catch {
    return false;
  }
}

function processState(stat: string): string {
  // The command name is parenthesised and may contain spaces; fields after it are space-separated.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
}

interface ProcessEntry {
  readonly pid: number;
  readonly parentPid: number;
  readonly groupId: number;
}

function listProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      entries.push({ pid: Number(name), parentPid: Number(fields[1]), groupId: Number(fields[2]) });
    } catch {
      // The process ended while we were reading.
    }
  }
  return entries;
}

/** Live descendants of `pid` (children, grandchildren, ...). Linux only. */
export function descendantsOf(pid: number): number[] {
  const entries = listProcesses();
  const result: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const entry of entries) {
      if (entry.parentPid === parent) {
        result.push(entry.pid);
        queue.push(entry.pid);
      }
    }
  }
  return result;
}

/** Live members of process group `groupId`. Linux only. */
export function processGroupMembers(groupId: number): number[] {
  return listProcesses()
    .filter((entry) => entry.groupId === groupId)
    .map((entry) => entry.pid);
}

/** The process group of a live pid, or undefined. */
export function processGroupOf(pid: number): number | undefined {
  return listProcesses().find((entry) => entry.pid === pid)?.groupId;
}

/**
 * Polls `condition` on each turn of the event loop's timer phase until it holds. For conditions no event reports
 * (a process in another group vanishing), with a deadline so a failure is a clear error, not a hang.
 */
export async function waitUntil(
  condition: () => boolean,
  description: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Sends `signal` to every process of a group, ignoring a group that is already gone. */
export function killGroup(groupId: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-groupId, signal);
  } catch {
    // Already gone.
  }
}

const trackedGroups = new Set<number>();

/** Registers extra process groups (e.g. agents a server spawned) for {@link reapAll} to kill. */
export function trackProcessGroup(groupId: number): void {
  trackedGroups.add(groupId);
}

/**
 * Records the process groups of every live descendant of `pid` (for example the agent processes an
 * `acpremote expose` spawned, each in its own group) so {@link reapAll} kills them too, and returns their pids.
 */
export function trackDescendantGroups(pid: number): number[] {
  const descendants = descendantsOf(pid);
  for (const descendant of descendants) {
    const groupId = processGroupOf(descendant);
    if (groupId !== undefined) trackedGroups.add(groupId);
  }
  return descendants;
}

/**
 * Kills every process spawned through this module and every tracked group, waits for them, and returns the pids
 * that were still alive when teardown began (an empty array means the test had already cleaned up). Each spawned
 * process is SIGKILLed with its group, then its teardown reaps what it left behind: members of its group and
 * descendants in other groups (an `acpremote expose` agent, a `setsid` grandchild) that carry its tree marker.
 */
export async function reapAll(): Promise<number[]> {
  const leftovers: number[] = [];
  for (const [processHandle, group] of spawned) {
    if (isAlive(processHandle.pid)) leftovers.push(processHandle.pid);
    leftovers.push(...trackDescendantGroups(processHandle.pid));
    group.signal('SIGKILL');
  }
  for (const groupId of trackedGroups) {
    for (const pid of processGroupMembers(groupId)) leftovers.push(pid);
    killGroup(groupId);
  }
  await Promise.all([...spawned.values()].map((group) => group.terminate()));
  await waitUntil(
    () => [...trackedGroups].every((groupId) => processGroupMembers(groupId).length === 0),
    'every tracked group is gone',
  );
  spawned.clear();
  trackedGroups.clear();
  return [...new Set(leftovers)];
}

/** Result of {@link runCliToExit}. */
export interface CompletedRun extends ProcessExit {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a built CLI with stdin closed at once and resolves when it exits. */
export async function runCliToExit(
  cli: keyof typeof cliPaths,
  args: readonly string[],
  options: SpawnProcessOptions = {},
): Promise<CompletedRun> {
  const processHandle = spawnCli(cli, args, options);
  processHandle.child.stdin?.end();
  const exit = await processHandle.closed;
  return { ...exit, stdout: processHandle.stdout(), stderr: processHandle.stderr() };
}
