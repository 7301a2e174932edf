// The release check's processes: every program runs in its own process group through @acpkit/remote's
// `spawnProcessGroup` (the product's teardown), is tracked, and is reaped on every exit path.
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawnProcessGroup } from '../built-process-group.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** How long each teardown step (stdin EOF, SIGTERM) may take before the next, harsher one. */
const STOP_GRACE_MS = 3_000;

/** @type {Set<ReturnType<typeof spawnProcessGroup>>} */
const children = new Set();

/** Spawns argv in its own process group and tracks it until its stdio has closed. */
function spawnTracked(command, args, options) {
  const group = spawnProcessGroup([command, ...args], { ...options, terminateTimeoutMs: STOP_GRACE_MS });
  children.add(group);
  group.process.on('close', () => children.delete(group));
  group.process.on('error', () => children.delete(group));
  return group;
}

/** Stops every program still running, with everything it started. */
export async function reapChildren() {
  await Promise.all([...children].map((group) => group.terminate()));
}

/**
 * Environment for the consumer side. pnpm's per-run variables must not leak into npm or the installed programs:
 * NODE_PATH would let a missing dependency resolve from the workspace and hide a broken package.
 */
export function consumerEnvironment() {
  /** @type {NodeJS.ProcessEnv} */
  const environment = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_PATH' || key === 'NODE_OPTIONS' || key === 'INIT_CWD' || key === 'PNPM_SCRIPT_SRC_DIR')
      continue;
    if (/^npm_/i.test(key) && !/registry|proxy|cafile|strict_ssl|userconfig|cache/i.test(key)) continue;
    if (/^pnpm_config_/i.test(key)) continue;
    environment[key] = value;
  }
  return { ...environment, FORCE_COLOR: '0', NO_COLOR: '1', NO_UPDATE_NOTIFIER: '1' };
}

export function displayCommand(command, args) {
  return [command, ...args].map((part) => part.replace(root, '').replace(tmpdir(), '$TMP')).join(' ');
}

export function tail({ stdout, stderr }, lines = 40) {
  const text = `${stdout}${stdout && stderr ? '\n' : ''}${stderr}`.trimEnd().split('\n');
  return text.slice(-lines).join('\n');
}

/**
 * Runs a command to completion and resolves with its output; rejects with the exit status and the output's tail.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean }} [options]
 * @returns {Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>}
 */
export function run(command, args, options = {}) {
  const { cwd = root, env = process.env, timeoutMs = 120_000, allowFailure = false } = options;
  return new Promise((resolvePromise, rejectPromise) => {
    const group = spawnTracked(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const child = group.process;
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    // A guard against a hung tool, not a synchronisation: the check fails with the output so far.
    const timer = setTimeout(() => {
      timedOut = true;
      group.signal('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      rejectPromise(new Error(`${command} could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const outcome = { code, signal, stdout, stderr };
      if (timedOut) {
        rejectPromise(
          new Error(
            `${displayCommand(command, args)} timed out after ${timeoutMs / 1000} s\n${tail(outcome)}`,
          ),
        );
      } else if (code !== 0 && !allowFailure) {
        rejectPromise(
          new Error(`${displayCommand(command, args)} exited ${code ?? signal}\n${tail(outcome)}`),
        );
      } else {
        resolvePromise(outcome);
      }
    });
  });
}

/**
 * Starts a long-running program with piped stdio (its stderr is kept for diagnostics).
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 */
export function start(command, args, options) {
  const group = spawnTracked(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  const child = group.process;
  let stderr = '';
  const stderrWaiters = new Set();
  child.stderr?.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
    for (const waiter of stderrWaiters) waiter();
  });
  const exited = new Promise((resolvePromise) => {
    child.on('close', (code, signal) => {
      resolvePromise({ code, signal });
      for (const waiter of stderrWaiters) waiter();
    });
    child.on('error', (error) => {
      stderr += `\n[could not start: ${error.message}]`;
      resolvePromise({ code: null, signal: null });
      for (const waiter of stderrWaiters) waiter();
    });
  });
  const display = displayCommand(command, args);
  return {
    child,
    exited,
    display,
    stderr: () => stderr,
    /** Resolves with the first match of `pattern` in stderr; rejects if the program exits first. */
    waitForStderr(pattern, timeoutMs = 30_000) {
      return new Promise((resolvePromise, rejectPromise) => {
        const timer = setTimeout(() => {
          stderrWaiters.delete(check);
          rejectPromise(
            new Error(`${display}: no ${pattern} on stderr within ${timeoutMs / 1000} s\n${stderr}`),
          );
        }, timeoutMs);
        function check() {
          const match = pattern.exec(stderr);
          if (match) {
            clearTimeout(timer);
            stderrWaiters.delete(check);
            resolvePromise(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            stderrWaiters.delete(check);
            rejectPromise(
              new Error(
                `${display} exited ${child.exitCode ?? child.signalCode} before ${pattern}\n${stderr}`,
              ),
            );
          }
        }
        stderrWaiters.add(check);
        check();
      });
    },
    /** Resolves with the exit code; rejects if the program is still running after `timeoutMs`. */
    waitForExit(timeoutMs = 15_000) {
      return settleWithin(
        exited,
        timeoutMs,
        () => `${display} still running ${timeoutMs / 1000} s later\n${stderr}`,
      );
    },
  };
}

/** Settles like `promise`, or rejects with `message()` when it has not settled after `timeoutMs`. */
async function settleWithin(promise, timeoutMs, message) {
  let timer;
  const timeout = new Promise((_, rejectPromise) => {
    timer = setTimeout(() => rejectPromise(new Error(message())), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Rejects when `promise` has not settled after `timeoutMs` (a hang guard, not a synchronisation). */
export function within(promise, timeoutMs, what) {
  return settleWithin(promise, timeoutMs, () => `${what} did not finish within ${timeoutMs / 1000} s`);
}
