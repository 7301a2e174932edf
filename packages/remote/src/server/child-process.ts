// spawnProcessGroup: a child in its own process group, and its teardown (stdin EOF, SIGTERM, SIGKILL, leftovers).
import { type ChildProcess, spawn } from 'node:child_process';
import { validateCommandArgv, validateTerminateTimeout } from '../options/validation.js';
import {
  isRunning,
  newTreeMarker,
  PROCESS_TREE_VARIABLE,
  processesCarrying,
  processesCarryingSync,
} from './process-tree.js';

/** What one of a child's standard streams is connected to. */
export type ProcessGroupStdio = 'pipe' | 'ignore' | 'inherit';

/**
 * Options of {@link spawnProcessGroup}.
 *
 * @example
 * ```ts
 * const options: SpawnProcessGroupOptions = { stdio: ['ignore', 'pipe', 'pipe'], terminateTimeoutMs: 3_000 };
 * ```
 */
export interface SpawnProcessGroupOptions {
  /** Working directory of the child. Default: this process's. */
  cwd?: string;
  /** The child's whole environment. Default: `process.env`. `ACPKIT_PROCESS_TREE` is added to it. */
  env?: NodeJS.ProcessEnv;
  /**
   * stdin, stdout, stderr, and optionally `'ipc'` for a Node.js child that talks over `child.send()`.
   * Default: `['pipe', 'pipe', 'inherit']`.
   */
  stdio?:
    | readonly [ProcessGroupStdio, ProcessGroupStdio, ProcessGroupStdio]
    | readonly [ProcessGroupStdio, ProcessGroupStdio, ProcessGroupStdio, 'ipc'];
  /**
   * Start the child in a new process group (default `true`), so teardown reaches everything it starts. `false`
   * keeps it in this process's group, so a terminal's Ctrl+C reaches it too; signals then go to the child alone.
   * Windows has no process groups: there the child alone is signalled either way.
   */
  newProcessGroup?: boolean;
  /**
   * How long each teardown step waits before the next, harsher one. Default
   * {@link RemoteDefaults.terminateTimeoutMs}.
   */
  terminateTimeoutMs?: number;
}

/**
 * How a child ended. `error` is set when it never started (`ENOENT`, `EACCES`, `EMFILE`, ...); `code` and `signal`
 * are then `null`.
 *
 * @example
 * ```ts
 * const { code, signal, error } = await child.exited;
 * ```
 */
export interface ProcessGroupExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

/**
 * A child process started by {@link spawnProcessGroup}, with its teardown.
 *
 * @example
 * ```ts
 * const agent = spawnProcessGroup(['node', 'agent.js']);
 * agent.process.stdout?.on('data', (chunk) => process.stderr.write(chunk));
 * await agent.terminate();
 * ```
 */
export interface ProcessGroupChild {
  /** The Node.js child process. Its stdio streams are `null` when it never started (see {@link ProcessGroupExit}). */
  readonly process: ChildProcess;
  /** Settles (never rejects) once the child has exited, or failed to start. */
  readonly exited: Promise<ProcessGroupExit>;
  /** True once {@link ProcessGroupChild.exited} has settled. */
  readonly hasExited: boolean;
  /** Sends `signal` to the child's whole process group (to the child alone without one); ignores a group that is gone. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Stops the child and everything it started, each step only if the previous one did not end it within
   * `terminateTimeoutMs`: close its stdin (and its IPC channel) → SIGTERM the group → SIGKILL the group. Then, once
   * the child is gone, the same SIGTERM → SIGKILL for what it left behind: members of its group, and (on Linux)
   * descendants that left the group (`setsid`, daemons) but still carry its `ACPKIT_PROCESS_TREE` marker.
   * Idempotent: every call returns the same promise.
   */
  terminate(): Promise<ProcessGroupExit>;
}

/** How often teardown looks whether processes that emit no events (group members, escapees) are gone. */
const GONE_POLL_MS = 25;
/**
 * How long teardown waits, at least, for SIGKILLed leftovers to be gone: SIGKILL cannot be ignored, but on a busy
 * machine the kernel may take longer than a short `terminateTimeoutMs` to end them, and teardown should not report
 * done while they still run.
 */
const KILLED_GONE_MS = 2_000;
const usesProcessGroups = process.platform !== 'win32';

/**
 * Children whose teardown is not over (running, or being torn down), with their tree markers: the last resort when
 * this process exits without finishing their teardown (`process.exit()` after a second SIGTERM, an uncaught
 * exception).
 */
const unfinishedTrees = new Map<ProcessGroupChild, string>();
let exitHookInstalled = false;

/**
 * SIGKILLs the group of every unfinished child, and (on Linux) every descendant that left its group but carries its
 * tree marker: the same reach as a teardown's sweep, done synchronously because nothing runs after `'exit'`.
 */
function killUnfinishedTreesOnExit(): void {
  // The group of a child that has exited is reached through the marker its members carry, never by its pid again.
  for (const child of unfinishedTrees.keys()) if (!child.hasExited) child.signal('SIGKILL');
  for (const pid of processesCarryingSync(new Set(unfinishedTrees.values()))) signalPid(pid, 'SIGKILL');
}

function signalPid(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Keeps the event loop alive on purpose: whoever awaits a teardown wants it finished before the process ends. */
function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Resolves true when `promise` settles within `milliseconds`, false otherwise. */
async function settlesWithin(promise: Promise<unknown>, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), milliseconds);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Spawns `argv` (no shell) as the leader of a new process group, and gives it a teardown that reaches everything
 * it started: the one process-group mechanism behind `serveCommand`, the `acpkit client`'s agent, and this
 * repository's scripts and tests. If this process exits while the child runs or is being torn down, the child's
 * group and (on Linux) its escaped descendants carrying its marker are SIGKILLed on the way out (an `'exit'`
 * handler; it cannot run when this process is SIGKILLed: run under a supervisor that kills the whole service, such
 * as systemd's default `KillMode=control-group` or a container, for that case).
 *
 * @param argv - Command and arguments, e.g. `['node', 'agent.js']`.
 * @param options - Working directory, environment, stdio, process group and teardown timing.
 * @returns The child; a spawn failure is reported through `exited` (with `error`), never thrown.
 * @throws {@link AcpRemoteError} `INVALID_OPTION` for an empty command, an argument with a NUL character or a
 *   `terminateTimeoutMs` that is not a positive number.
 * @example
 * ```ts
 * import { spawnProcessGroup } from '@acpkit/remote';
 *
 * const agent = spawnProcessGroup(['node', 'agent.js'], { stdio: ['pipe', 'pipe', 'inherit'] });
 * const { error } = await Promise.race([agent.exited, new Promise<{ error?: Error }>((r) => setTimeout(r, 100, {}))]);
 * if (error) console.error(`could not start: ${error.message}`);
 * await agent.terminate(); // stdin EOF, then SIGTERM, then SIGKILL, to the whole group
 * ```
 */
export function spawnProcessGroup(
  argv: readonly string[],
  options: SpawnProcessGroupOptions = {},
): ProcessGroupChild {
  validateCommandArgv(argv);
  const terminateTimeoutMs = validateTerminateTimeout(options.terminateTimeoutMs);
  const ownGroup = usesProcessGroups && options.newProcessGroup !== false;
  const environment = options.env ?? process.env;
  const tree = newTreeMarker(environment[PROCESS_TREE_VARIABLE]);
  const [file, ...args] = argv;
  const child = spawn(file!, args, {
    cwd: options.cwd,
    env: { ...environment, [PROCESS_TREE_VARIABLE]: tree.value },
    stdio: [...(options.stdio ?? ['pipe', 'pipe', 'inherit'])],
    detached: ownGroup,
    shell: false,
    windowsHide: true,
  });
  let hasExited = false;
  let terminating: Promise<ProcessGroupExit> | undefined;
  const exited = new Promise<ProcessGroupExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // A persistent listener: ChildProcess can emit 'error' more than once, and an unhandled one would crash.
    child.on('error', (error) => {
      // 'error' without a pid means the process never started; 'exit' will not follow.
      if (child.pid === undefined) resolve({ code: null, signal: null, error });
    });
  }).then((exit) => {
    hasExited = true;
    // A child that ended by itself is no longer this process's to sweep at exit, unless a teardown is under way.
    if (terminating === undefined) unfinishedTrees.delete(handle);
    return exit;
  });
  // Writing to, or reading from, a child that is gone must not crash this process; `exited` reports the end.
  child.stdin?.on('error', () => {});
  child.stdout?.on('error', () => {});

  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    const pid = child.pid;
    if (pid === undefined) return false;
    // A negative pid addresses the whole process group: grandchildren go too (no `sh -c` orphans).
    return signalPid(ownGroup ? -pid : pid, signal);
  };

  /** What outlived the child: live members of its group, and descendants that escaped it carrying its marker. */
  // Escaped descendants once signalled stay on the list until they really ended (see isRunning).
  const signalled = new Set<number>();
  const leftovers = async (): Promise<{ group: boolean; escaped: number[] }> => {
    const escaped = new Set(await processesCarrying(tree.marker));
    for (const pid of signalled) if (isRunning(pid)) escaped.add(pid);
    return { group: ownGroup && signalGroup(0), escaped: [...escaped] };
  };

  const signalLeftovers = (found: { group: boolean; escaped: number[] }, signal: NodeJS.Signals) => {
    if (found.group) signalGroup(signal);
    for (const pid of found.escaped) {
      signalled.add(pid);
      signalPid(pid, signal);
    }
  };

  const leftoversGone = async (milliseconds: number): Promise<boolean> => {
    const deadline = Date.now() + milliseconds;
    for (;;) {
      const found = await leftovers();
      if (!found.group && found.escaped.length === 0) return true;
      if (Date.now() >= deadline) return false;
      await delay(GONE_POLL_MS);
    }
  };

  const terminate = () => {
    terminating ??= (async () => {
      if (child.pid === undefined) return exited;
      // Until the sweep below is done, an exit of this process sweeps in its place.
      unfinishedTrees.set(handle, tree.marker);
      if (!hasExited) {
        // Ask first: a stdio agent ends on stdin EOF, a Node.js child with IPC when its channel closes.
        const asked = child.stdin !== null || child.connected;
        child.stdin?.end();
        if (child.connected) child.disconnect();
        if (!asked || !(await settlesWithin(exited, terminateTimeoutMs))) {
          signalGroup('SIGTERM');
          if (!(await settlesWithin(exited, terminateTimeoutMs))) {
            signalGroup('SIGKILL');
            await exited;
          }
        }
      }
      // The child is gone; what it started may not be.
      const found = await leftovers();
      if (found.group || found.escaped.length > 0) {
        signalLeftovers(found, 'SIGTERM');
        if (!(await leftoversGone(terminateTimeoutMs))) {
          signalLeftovers(await leftovers(), 'SIGKILL');
          await leftoversGone(Math.max(terminateTimeoutMs, KILLED_GONE_MS));
        }
      }
      unfinishedTrees.delete(handle);
      return exited;
    })();
    return terminating;
  };

  const handle: ProcessGroupChild = {
    process: child,
    exited,
    get hasExited() {
      return hasExited;
    },
    signal(signal) {
      signalGroup(signal);
    },
    terminate,
  };
  if (child.pid !== undefined) {
    unfinishedTrees.set(handle, tree.marker);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', killUnfinishedTreesOnExit);
    }
  }
  return handle;
}
