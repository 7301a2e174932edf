// The test command's step runner: steps form a graph (each starts once the steps it needs have passed), independent
// steps run at the same time, and each step's output is printed as one block when it ends, so concurrent steps never
// interleave their lines. Every step runs in its own process group and is stopped with it on SIGINT/SIGTERM. Each
// step reports the CPU time its processes used (user + system, all descendants): on a shared 2-core machine that is
// the figure that adds up, where wall time depends on what else runs.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * @typedef {object} StepResult
 * @property {boolean} ok
 * @property {string} [detail] one line shown after `ok`/`FAILED`
 * @property {string} [output] what the step printed
 * @property {number} [cpuSeconds] CPU time (user + system) of the step's processes
 */
/**
 * @typedef {object} Step
 * @property {string} name
 * @property {string[]} [needs] steps that must have passed first; a failed one skips this step (a failure)
 * @property {string[]} [after] steps that must have ended first, passed or not
 * @property {boolean} [heavy] takes a core or more for most of its run: at most `heavySlots` of them run at once
 * @property {() => Promise<StepResult>} run
 */

// The command runs under `sh`, whose `times` prints, once the command has ended, the CPU time of every process it
// waited for and theirs in turn (getrusage's RUSAGE_CHILDREN, which Node does not expose) on file descriptor 3.
const MEASURED = '"$@"; status=$?; times >&3; exit $status';

/** User + system seconds of the second line of `times` (`0m1.230000s 0m0.110000s`), the children's. */
function childrenCpuSeconds(times) {
  const seconds = (text) => {
    const match = /^(\d+)m([\d.]+)s$/.exec(text);
    return match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
  };
  const [user, system] = (times.trim().split('\n')[1] ?? '').trim().split(/\s+/);
  const total = seconds(user ?? '') + seconds(system ?? '');
  return Number.isFinite(total) ? total : undefined;
}

/**
 * Runs a command to its end in its own process group, collecting stdout and stderr together, and writing them to
 * `log` as they come (`tail -f` it to follow a long step).
 * @param {string[]} command
 * @param {{ cwd: string; env: NodeJS.ProcessEnv; log?: string }} options
 * @returns {Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; cpuSeconds?: number }>}
 */
export function runCommand(command, { cwd, env, log }) {
  return new Promise((resolvePromise) => {
    const child = spawn('sh', ['-c', MEASURED, 'sh', ...command], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let times = '';
    child.stdio[3]?.setEncoding('utf8').on('data', (chunk) => {
      times += chunk;
    });
    running.add(child);
    if (log) mkdirSync(dirname(log), { recursive: true });
    const logFile = log ? createWriteStream(log) : undefined;
    let output = '';
    const append = (chunk) => {
      output += chunk;
      logFile?.write(chunk);
    };
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    child.once('error', (error) => {
      running.delete(child);
      logFile?.end();
      resolvePromise({
        code: null,
        signal: null,
        output: `${output}cannot run ${command[0]}: ${error.message}\n`,
      });
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      logFile?.end();
      resolvePromise({ code, signal, output, cpuSeconds: childrenCpuSeconds(times) });
    });
  });
}

/** Process groups of the commands still running, stopped when the test command is interrupted. */
const running = new Set();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

function indent(text) {
  return text.trimEnd() ? `${text.trimEnd()}\n` : '';
}

/**
 * Runs every step as soon as what it needs has passed, with at most `heavySlots` heavy steps at a time (a heavy
 * step waiting for a slot lets lighter ones go first). Resolves with each step's outcome, in the order given.
 * @param {Step[]} steps
 * @param {{ heavySlots: number; started: number }} options
 * @returns {Promise<Map<string, StepResult & { seconds: number; skipped?: boolean }>>}
 */
export async function runStepGraph(steps, { heavySlots, started }) {
  const byName = new Map(steps.map((step) => [step.name, step]));
  for (const step of steps) {
    for (const name of [...(step.needs ?? []), ...(step.after ?? [])]) {
      if (!byName.has(name)) throw new Error(`step "${step.name}" needs an unknown step "${name}"`);
    }
  }
  /** @type {Map<string, StepResult & { seconds: number; skipped?: boolean }>} */
  const results = new Map();
  const pending = new Set(steps);
  let heavyRunning = 0;
  const clock = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s`;

  return new Promise((resolveAll) => {
    const start = (step) => {
      pending.delete(step);
      if (step.heavy) heavyRunning += 1;
      const stepStarted = Date.now();
      console.log(`[${clock()}] started ${step.name}`);
      step
        .run()
        .catch((error) => ({ ok: false, output: `${error instanceof Error ? error.stack : error}\n` }))
        .then((result) => {
          if (step.heavy) heavyRunning -= 1;
          const seconds = (Date.now() - stepStarted) / 1000;
          results.set(step.name, { ...result, seconds });
          const status = result.ok ? 'ok' : 'FAILED';
          const detail = result.detail ? ` - ${result.detail}` : '';
          const cpu = result.cpuSeconds === undefined ? '' : `, ${result.cpuSeconds.toFixed(1)} CPU-s`;
          process.stdout.write(
            `\n==> ${step.name} (ended at ${clock().trim()})\n${indent(result.output ?? '')}` +
              `<== ${step.name}: ${status}${detail} (${seconds.toFixed(1)} s${cpu})\n`,
          );
          schedule();
        });
    };
    const schedule = () => {
      // A skipped step can unblock (skip) steps listed before it: repeat until nothing changes.
      for (let changed = true; changed; ) {
        changed = false;
        for (const step of [...pending]) {
          const prerequisites = [...(step.needs ?? []), ...(step.after ?? [])];
          if (!prerequisites.every((name) => results.has(name))) continue;
          const failed = (step.needs ?? []).filter((name) => !results.get(name)?.ok);
          if (failed.length > 0) {
            pending.delete(step);
            const detail = `skipped: needs ${failed.join(', ')}`;
            results.set(step.name, { ok: false, skipped: true, detail, seconds: 0 });
            console.log(`\n<== ${step.name}: FAILED (${detail})`);
            changed = true;
          } else if (!step.heavy || heavyRunning < heavySlots) {
            start(step);
          }
        }
      }
      if (results.size === steps.length) resolveAll(results);
    };
    schedule();
  });
}
