import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { HostReport } from './host-ipc.js';

const benchRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Extra Node flags for every process the bench starts: `ACPKIT_BENCH_CPU_PROF=<dir>` writes a V8 CPU profile of
 * each host and mirror into `<dir>` (open them in Chrome DevTools, or summarise with `scripts/bench-profile.mjs`).
 */
export function profilingFlags(): string[] {
  const directory = process.env.ACPKIT_BENCH_CPU_PROF;
  return directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : [];
}

/** A running host process (a server under test or a raw baseline server). */
export interface RunningHost {
  readonly url: string;
  readonly child: ChildProcess;
  /** Heap and RSS of the host after two full garbage collections. */
  memory(): Promise<Extract<HostReport, { type: 'memory' }>>;
  close(): Promise<void>;
}

/**
 * Starts `src/hosts/<name>.ts` under tsx with an IPC channel and waits until it listens.
 *
 * @example
 * ```ts
 * const host = await startHost('raw-ws-echo-host');
 * ```
 */
export async function startHost(name: string, args: readonly string[] = []): Promise<RunningHost> {
  const child = fork(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), args, {
    cwd: benchRoot,
    execArgv: ['--import', 'tsx', '--expose-gc', ...profilingFlags()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onMessage = (report: HostReport) => {
      if (report.type === 'ready') {
        child.off('exit', onExit);
        resolve(report.url);
      }
    };
    const onExit = (code: number | null) =>
      reject(new Error(`host ${name} exited with ${code} before it was ready`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
  return {
    url,
    child,
    memory() {
      return new Promise((resolve) => {
        const onMessage = (report: HostReport) => {
          if (report.type !== 'memory') return;
          child.off('message', onMessage);
          resolve(report);
        };
        child.on('message', onMessage);
        child.send({ type: 'memory' });
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
