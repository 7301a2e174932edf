// Instructions per message (user space) of each relay and mirror process, counted by valgrind's callgrind while a
// fixed number of messages crosses the path: unlike time, the count does not move with other people's load, so it
// is the figure to compare our relays with their references by on a shared machine. Only the relay and mirror
// processes run under valgrind (about 50× slower); the driver and the echo agent run natively. The kernel's share
// (copies into pipes and sockets) is not counted: the per-process system-call counts of the relay section show it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { echoParams, measureCount } from './measure.js';
import type { OpenPath, PathDefinition, ProcessRole } from './paths.js';
import type { FigureRecord } from './report.js';
import { SINK_METHOD } from './rpc-client.js';

/** A fixed amount of traffic: `count` messages of `params`, `window` in flight. */
interface InstructionTask {
  id: string;
  params: string;
  window: number;
  count: number;
  method?: string;
}

const instructionTasks: InstructionTask[] = [
  { id: 'rtt', params: echoParams(360), window: 1, count: 500 },
  { id: 'small-throughput', params: echoParams(360), window: 64, count: 5_000 },
  { id: '16kib', params: echoParams(16 * 1024), window: 16, count: 1_000 },
  { id: '1mib', params: echoParams(1024 * 1024), window: 4, count: 32 },
  { id: '16mib', params: echoParams(16 * 1024 * 1024 - 1024), window: 1, count: 2, method: SINK_METHOD },
];

function tasksOf(options: InstructionSectionOptions): InstructionTask[] {
  const wanted = options.tasks;
  return wanted ? instructionTasks.filter((task) => wanted.includes(task.id)) : instructionTasks;
}

/** Uncounted runs of every task before counting (see runInstructionSection). */
const WARM_UP_ROUNDS = 3;

/** The processes counted: the ones our code (or the reference's) runs in. */
const countedRoles = ['mirror', 'relay'] as const satisfies readonly ProcessRole[];

/** Whether valgrind (with callgrind_control) is on PATH. */
export function callgrindAvailable(): boolean {
  return (
    spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0 &&
    spawnSync('callgrind_control', ['--version'], { stdio: 'ignore' }).status === 0
  );
}

export function callgrindControl(args: string[]): void {
  const result = spawnSync('callgrind_control', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${result.stderr}`);
}

/**
 * Instructions counted for `pid` since the last zeroing, in its main thread and in all its threads (V8's helper
 * threads compile and collect garbage concurrently): dumps now and reads the totals of the dump's per-thread files.
 */
export function dumpTotals(directory: string, pid: number): { main: number; all: number } {
  callgrindControl([`--dump=bench`, String(pid)]);
  // With --separate-threads=yes a dump is one file per thread: callgrind.<pid>.<dump>-<thread>.
  const pattern = new RegExp(`^callgrind\\.${pid}\\.(\\d+)-(\\d+)$`);
  const files = readdirSync(directory).flatMap((name) => {
    const match = pattern.exec(name);
    return match ? [{ name, dump: Number(match[1]), thread: Number(match[2]) }] : [];
  });
  const latest = Math.max(...files.map((file) => file.dump));
  if (!Number.isFinite(latest)) throw new Error(`callgrind wrote no dump for ${pid} in ${directory}`);
  let main = 0;
  let all = 0;
  for (const file of files.filter((candidate) => candidate.dump === latest)) {
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(directory, file.name), 'utf8'));
    const count = totals ? Number(totals[1]) : 0;
    all += count;
    if (file.thread === 1) main = count;
  }
  return { main, all };
}

/** Options of the instruction section. */
export interface InstructionSectionOptions {
  /** Our relays (each measured with its reference). */
  paths: PathDefinition[];
  allPaths: readonly PathDefinition[];
  /** Task ids to run (default: all). */
  tasks?: readonly string[];
  /** Counted runs per task (after one uncounted warm-up run). */
  repeats: number;
  /** Where callgrind writes its dumps (kept: `callgrind_annotate` reads them). */
  directory: string;
  log: (line: string) => void;
}

/** The command a counted process runs under: callgrind, one dump file per thread, into `directory` (made here). */
export function callgrindWrapper(directory: string): string[] {
  mkdirSync(directory, { recursive: true });
  return [
    'valgrind',
    '--tool=callgrind',
    `--callgrind-out-file=${join(directory, 'callgrind.%p')}`,
    '--separate-threads=yes',
    '--quiet',
  ];
}

/**
 * For each of our relays and its reference, in turn: opens the path with its relay and mirror under callgrind, and
 * for each task runs the traffic once to warm up (the JIT compiles the hot code), then `repeats` times between a
 * zeroing and a dump of the counters.
 *
 * @example
 * ```ts
 * const records = await runInstructionSection({ paths, allPaths: paths, repeats: 2, directory: '/tmp/cg', log });
 * ```
 */
export async function runInstructionSection(options: InstructionSectionOptions): Promise<FigureRecord[]> {
  const wrapper = callgrindWrapper(options.directory);
  const values = new Map<string, number[]>();
  // Each path once, its reference right before it (serve-command is both a path and serve-command-metrics' reference).
  const measured = [
    ...new Set(
      options.paths.flatMap((path) => {
        const reference = options.allPaths.find((candidate) => candidate.id === path.reference);
        return reference ? [reference, path] : [path];
      }),
    ),
  ];
  for (const path of measured) {
    options.log(`instructions: opening ${path.id} under callgrind`);
    const open: OpenPath = await path.open({ wrap: { relay: wrapper, mirror: wrapper } });
    try {
      const counted = open.processes.filter((process) =>
        (countedRoles as readonly string[]).includes(process.role),
      );
      // The JIT tiers code up after enough calls, not after enough time: run everything a few times uncounted so
      // the counted runs measure optimised code, not the compiler (whose threads valgrind counts too).
      for (let round = 0; round < WARM_UP_ROUNDS; round += 1) {
        for (const task of tasksOf(options)) {
          await measureCount(open.client, task.params, task.window, task.count, task.method);
        }
      }
      options.log(`instructions: ${path.id} warmed up`);
      for (const task of tasksOf(options)) {
        await measureCount(open.client, task.params, task.window, task.count, task.method);
        for (let repeat = 0; repeat < options.repeats; repeat += 1) {
          for (const { pid } of counted) callgrindControl(['--zero', String(pid)]);
          await measureCount(open.client, task.params, task.window, task.count, task.method);
          for (const { role, pid } of counted) {
            const { main, all } = dumpTotals(options.directory, pid);
            // The main thread is the figure: the helper threads mostly mark and sweep the heap, and V8 schedules
            // that by time, which valgrind stretches ~50×, so their share under callgrind is not the native one.
            for (const [name, count] of [
              [role, main],
              [`${role} (all threads)`, all],
            ] as const) {
              const id = `${path.id}\u0000${task.id}/${name}`;
              values.set(id, [...(values.get(id) ?? []), count / task.count]);
            }
          }
        }
        options.log(`instructions: ${path.id} ${task.id} done`);
      }
    } finally {
      await open.close();
    }
  }
  const records: FigureRecord[] = [];
  for (const path of measured) {
    for (const task of tasksOf(options)) {
      for (const role of countedRoles.flatMap((name) => [name, `${name} (all threads)`])) {
        const own = values.get(`${path.id}\u0000${task.id}/${role}`);
        if (!own) continue;
        const reference = path.reference
          ? values.get(`${path.reference}\u0000${task.id}/${role}`)
          : undefined;
        records.push({
          section: 'instructions',
          path: path.id,
          pathLabel: path.label,
          figure: `${task.id}/${role}`,
          unit: 'instructions per message',
          kind: 'time',
          values: own,
          ...(reference ? { baselineValues: reference, baselineLabel: `${path.reference}, same run` } : {}),
        });
      }
    }
  }
  return records;
}
