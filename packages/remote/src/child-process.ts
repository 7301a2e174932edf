import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** How to start one agent process. */
export interface ChildSpec {
  argv: readonly string[];
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  stderr: 'inherit' | 'discard';
  terminateTimeoutMs: number;
}

/** A spawned agent process in its own process group, with an idempotent, escalating teardown. */
export interface ManagedChild {
  readonly process: ChildProcess;
  /** Resolves with the exit code and signal once the process has exited (also after a spawn failure). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;
  readonly hasExited: boolean;
  /**
   * End stdin → wait → SIGTERM the group → wait → SIGKILL the group; then reap group members left behind by the
   * leader. Idempotent: every caller gets the same promise.
   */
  terminate(): Promise<void>;
}

const GROUP_POLL_MS = 25;

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    // A negative pid addresses the whole process group, so grandchildren go too (no `sh -c` orphans).
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

async function waitFor(promise: Promise<unknown>, milliseconds: number): Promise<boolean> {
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

async function waitForGroupGone(pid: number, milliseconds: number): Promise<boolean> {
  const deadline = Date.now() + milliseconds;
  while (signalGroup(pid, 0)) {
    if (Date.now() >= deadline) return false;
    await delay(GROUP_POLL_MS);
  }
  return true;
}

/**
 * Spawns `argv` without a shell, detached into its own process group, stdin/stdout piped.
 */
export function spawnManagedChild(spec: ChildSpec): ManagedChild {
  const [file, ...args] = spec.argv;
  const child = spawn(file!, args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', spec.stderr === 'inherit' ? 'inherit' : 'ignore'],
    detached: true,
    shell: false,
    windowsHide: true,
  });
  let hasExited = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once('exit', (code, signal) => {
        hasExited = true;
        resolve({ code, signal });
      });
      // A persistent listener: ChildProcess can emit 'error' more than once, and an unhandled one would crash.
      child.on('error', (error) => {
        // 'error' without a pid means the process never started; 'exit' will not follow.
        if (child.pid === undefined) {
          hasExited = true;
          resolve({ code: null, signal: null, error });
        }
      });
    },
  );
  child.stdin?.on('error', () => {});
  child.stdout?.on('error', () => {});
  let terminating: Promise<void> | undefined;
  const terminate = () => {
    terminating ??= (async () => {
      const pid = child.pid;
      if (!hasExited) {
        child.stdin?.end();
        if (!(await waitFor(exited, spec.terminateTimeoutMs)) && pid !== undefined) {
          signalGroup(pid, 'SIGTERM');
          if (!(await waitFor(exited, spec.terminateTimeoutMs))) {
            signalGroup(pid, 'SIGKILL');
            await exited;
          }
        }
      }
      if (pid === undefined) return;
      // The leader is gone; members of its group (grandchildren) may remain.
      if (signalGroup(pid, 0)) {
        signalGroup(pid, 'SIGTERM');
        if (!(await waitForGroupGone(pid, spec.terminateTimeoutMs))) {
          signalGroup(pid, 'SIGKILL');
          await waitForGroupGone(pid, spec.terminateTimeoutMs);
        }
      }
    })();
    return terminating;
  };
  return {
    process: child,
    exited,
    get hasExited() {
      return hasExited;
    },
    terminate,
  };
}

/** Waits until `stream` ended or closed (used to flush a child's last stdout lines). */
export async function streamFinished(
  stream: NodeJS.ReadableStream & { readableEnded?: boolean; closed?: boolean },
) {
  if (stream.readableEnded || stream.closed) return;
  await Promise.race([once(stream as never, 'end'), once(stream as never, 'close')]);
}
