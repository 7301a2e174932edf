import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnProcessGroup } from '@acpkit/remote';
import type { HostReport } from './host-ipc.js';
import { hostScript } from './host-scripts.js';

const benchRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Extra Node flags for every host and mirror the bench starts: `ACPKIT_BENCH_CPU_PROF=<dir>` writes a V8 CPU profile
 * of each into `<dir>` (open them in Chrome DevTools, or summarise with `scripts/bench-profile.mjs`);
 * `ACPKIT_BENCH_NODE_FLAGS` adds any others, e.g. `--perf-basic-prof` (JIT symbols for `perf` and for
 * `scripts/bench-profile.mjs --callgrind`).
 */
export function profilingFlags(): string[] {
  const directory = process.env.ACPKIT_BENCH_CPU_PROF;
  const extra = process.env.ACPKIT_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  return [...(directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : []), ...extra];
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
 * Starts `src/hosts/<name>.ts` (as plain JavaScript: see host-scripts.ts) with an IPC channel and waits until it
 * listens. `wrapper` runs Node under
 * another program (the instruction-count section runs hosts under `valgrind --tool=callgrind`); the host's pid is
 * then the wrapper's, which `valgrind` keeps (it runs the program in its own process).
 *
 * @example
 * ```ts
 * const host = await startHost('raw-ws-echo-host');
 * ```
 */
export async function startHost(
  name: string,
  args: readonly string[] = [],
  wrapper: readonly string[] = [],
): Promise<RunningHost> {
  const group = spawnProcessGroup(
    [...wrapper, process.execPath, '--expose-gc', ...profilingFlags(), hostScript(name), ...args],
    { cwd: benchRoot, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const child = group.process;
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
      // @acpkit/remote's teardown: the host exits when its IPC channel closes (writing its CPU profile); SIGTERM and
      // SIGKILL to its process group follow only if it does not.
      await group.terminate();
    },
  };
}
