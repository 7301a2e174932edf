// Relay paths: latency, pipelined throughput, large messages. Paths are measured group by group (each of our relays
// beside its own reference and nothing else alive), interleaved slice by slice within every repeat, with per-process
// counters (CPU, system calls, sleeps) for every slice.
import { echoParams, measureEcho, measureOne, measurePipelined, measureRoundTrips } from './measure.js';
import {
  type OpenPath,
  type PathDefinition,
  type PathId,
  type PathProcess,
  type ProcessRole,
  pathGroups,
} from './paths.js';
import { difference, type ProcessCounters, readCounters } from './process-stats.js';
import type { FigureRecord } from './report.js';
import type { RpcClient } from './rpc-client.js';
import { combineHops, type FigureKind, quantile } from './stats.js';

/** What one slice of a task measured: its figures, and how many messages crossed the path meanwhile. */
interface SliceResult {
  figures: number[];
  messages: number;
}

/** One measurement on one open path, producing one or more figures. */
export interface RelayTask {
  id: string;
  figures: { id: string; unit: string; kind: FigureKind }[];
  run(client: RpcClient, sliceMs: number): Promise<SliceResult>;
}

const small = echoParams(360);
const medium = echoParams(16 * 1024);
const large = echoParams(1024 * 1024);
/** Just under the 16 MiB default message limit of every hop (the limit includes the envelope). */
const huge = echoParams(16 * 1024 * 1024 - 1024);

const megabytesPerSecond = (result: { messages: number; seconds: number; bytesPerMessage: number }) =>
  (result.messages * result.bytesPerMessage) / result.seconds / 1e6;

/** Every relay task; `smoke` keeps the three the guards read. */
export const relayTasks: RelayTask[] = [
  {
    id: 'rtt',
    figures: [
      { id: 'rtt-p50', unit: 'µs', kind: 'time' },
      { id: 'rtt-p99', unit: 'µs', kind: 'time' },
    ],
    async run(client, sliceMs) {
      const samples = await measureRoundTrips(client, small, sliceMs);
      return { figures: [quantile(samples, 0.5), quantile(samples, 0.99)], messages: samples.length };
    },
  },
  {
    id: 'small-throughput',
    figures: [{ id: 'msgs-per-s', unit: 'msg/s', kind: 'rate' }],
    async run(client, sliceMs) {
      const result = await measurePipelined(client, small, 64, sliceMs);
      return { figures: [result.messages / result.seconds], messages: result.messages };
    },
  },
  {
    id: '16kib',
    figures: [{ id: 'mb-per-s-16kib', unit: 'MB/s', kind: 'rate' }],
    async run(client, sliceMs) {
      const result = await measurePipelined(client, medium, 16, sliceMs);
      return { figures: [megabytesPerSecond(result)], messages: result.messages };
    },
  },
  {
    id: '1mib',
    figures: [{ id: 'mb-per-s-1mib', unit: 'MB/s', kind: 'rate' }],
    async run(client, sliceMs) {
      const result = await measurePipelined(client, large, 4, sliceMs);
      return { figures: [megabytesPerSecond(result)], messages: result.messages };
    },
  },
  {
    id: '16mib',
    figures: [
      { id: 'relay-16mib-ms', unit: 'ms', kind: 'time' },
      { id: 'relay-16mib-echo-ms', unit: 'ms', kind: 'time' },
    ],
    async run(client) {
      // One way (acknowledged with a small answer), then both ways: the echo fills the server's replay buffer on its
      // way back, and the small round trip after it proves the session still flows.
      return { figures: [await measureOne(client, huge), await measureEcho(client, huge)], messages: 3 };
    },
  },
];

/** Per-message counters of one process role, recorded for every task slice. */
const processFigures = [
  { counter: 'cpu-us', unit: 'µs CPU', scale: (counters: ProcessCounters) => counters.cpuNs / 1000 },
  {
    counter: 'syscalls',
    unit: 'read+write calls',
    scale: (counters: ProcessCounters) => counters.readCalls + counters.writeCalls,
  },
  { counter: 'sleeps', unit: 'sleeps', scale: (counters: ProcessCounters) => counters.sleeps },
] as const;

/** Options of the relay section. */
export interface RelaySectionOptions {
  paths: PathDefinition[];
  tasks: RelayTask[];
  repeats: number;
  sliceMs: number;
  log: (line: string) => void;
}

/**
 * The order of a group's paths in round `round`: rotated every round (A B, B A, A B, ...), so neither side of a
 * comparison always runs first (after a slice, the driver and the machine are not in the state they were before it).
 */
export function sliceOrder<T>(group: readonly T[], round: number): T[] {
  const shift = round % group.length;
  return [...group.slice(shift), ...group.slice(0, shift)];
}

/**
 * The selected paths in their measurement groups (a path no group names is measured on its own). A group that the
 * selection reduces to a part of another selected group is left out: the larger group measures the same paths.
 */
export function groupsOf(selected: readonly PathDefinition[]): PathDefinition[][] {
  const candidates = pathGroups
    .map((ids) => selected.filter((path) => ids.includes(path.id)))
    .filter((group) => group.length > 0);
  const groups = candidates.filter(
    (group, index) =>
      !candidates.some(
        (other, otherIndex) =>
          otherIndex !== index &&
          group.every((path) => other.includes(path)) &&
          (other.length > group.length || otherIndex < index),
      ),
  );
  const grouped = new Set(groups.flat());
  return [...groups, ...selected.filter((path) => !grouped.has(path)).map((path) => [path])];
}

type Values = Map<string, number[]>;

function push(values: Values, key: string, value: number): void {
  const list = values.get(key);
  if (list) list.push(value);
  else values.set(key, [value]);
}

/** Values are kept per group: a path measured in two groups is two instances, each paired with its own group. */
const key = (group: number, path: PathId, figure: string) => `${group}\u0000${path}\u0000${figure}`;
const processFigureId = (task: string, role: ProcessRole, counter: string) => `${task}/${role}/${counter}`;

/** Counters of every process of `open` now (a process that is gone is left out). */
function snapshot(processes: readonly PathProcess[]): Map<number, ProcessCounters> {
  const counters = new Map<number, ProcessCounters>();
  for (const { pid } of processes) {
    const current = readCounters(pid);
    if (current) counters.set(pid, current);
  }
  return counters;
}

/** Runs one task slice on one path and records its figures and per-process counters. */
async function measureSlice(
  group: number,
  path: PathDefinition,
  open: OpenPath,
  task: RelayTask,
  sliceMs: number,
  values: Values | undefined,
): Promise<void> {
  const before = snapshot(open.processes);
  const result = await task.run(open.client, sliceMs);
  const after = snapshot(open.processes);
  if (values === undefined) return;
  task.figures.forEach((figure, index) => {
    push(values, key(group, path.id, figure.id), result.figures[index]!);
  });
  for (const { role, pid } of open.processes) {
    const start = before.get(pid);
    const end = after.get(pid);
    if (!start || !end || result.messages === 0) continue;
    const delta = difference(end, start);
    for (const figure of processFigures) {
      push(
        values,
        key(group, path.id, processFigureId(task.id, role, figure.counter)),
        figure.scale(delta) / result.messages,
      );
    }
  }
}

/**
 * Measures group by group: opens the group's paths (and nothing else), runs one unrecorded warm-up round, then
 * `repeats` rounds; in each round every task runs one slice per path of the group, in an order rotated every round.
 * Ratios are taken within a round, so drift of the machine hits both sides of a comparison alike.
 *
 * @example
 * ```ts
 * const records = await runRelaySection({ paths, tasks: relayTasks, repeats: 5, sliceMs: 500, log: console.error });
 * ```
 */
export async function runRelaySection(options: RelaySectionOptions): Promise<FigureRecord[]> {
  const values: Values = new Map();
  const groups = groupsOf(options.paths);
  for (const [groupIndex, group] of groups.entries()) {
    const open = new Map<PathId, OpenPath>();
    try {
      for (const path of group) {
        options.log(`opening ${path.id}`);
        open.set(path.id, await path.open());
      }
      for (let round = 0; round <= options.repeats; round += 1) {
        const sliceMs = round === 0 ? Math.max(100, options.sliceMs / 2) : options.sliceMs;
        for (const task of options.tasks) {
          for (const path of sliceOrder(group, round)) {
            const recorded = round === 0 ? undefined : values;
            await measureSlice(groupIndex, path, open.get(path.id)!, task, sliceMs, recorded);
          }
        }
        const name = group.map((path) => path.id).join(' + ');
        options.log(
          round === 0 ? `${name}: warm-up round done` : `${name}: round ${round}/${options.repeats} done`,
        );
      }
    } finally {
      for (const path of open.values()) await path.close();
    }
  }
  return toRecords(options, groups, values);
}

function toRecords(
  options: RelaySectionOptions,
  groups: readonly PathDefinition[][],
  values: Values,
): FigureRecord[] {
  const records: FigureRecord[] = [];
  // A path's own figures: those of its first group. Its reference's: those of the reference's instance in that
  // same group (measured in the same rounds), never the reference's figures from another group.
  const homeOf = (id: PathId) => groups.findIndex((group) => group.some((path) => path.id === id));
  const ownValues = (id: PathId, figure: string) => values.get(key(homeOf(id), id, figure));
  const referenceValues = (path: PathDefinition, figure: string) =>
    path.reference ? values.get(key(homeOf(path.id), path.reference, figure)) : undefined;
  const baselineOf = (path: PathDefinition, figure: string, kind: FigureKind, own: number[]) => {
    // Our relays are compared with their same-run minimal reference; the references and serveAcp with the raw hops
    // they are made of (measured in another group: context, not a target).
    const reference = referenceValues(path, figure);
    if (reference) return { baselineValues: reference, baselineLabel: `${path.reference}, same run` };
    const hopValues = path.hops.map((hop) => ownValues(hop, figure));
    if (path.hops.length === 0 || !hopValues.every((list) => list !== undefined)) return {};
    const repeats = Math.min(own.length, ...hopValues.map((list) => list!.length));
    return {
      baselineValues: own.slice(0, repeats).map((_, repeat) =>
        combineHops(
          kind,
          hopValues.map((list) => list![repeat]!),
        ),
      ),
      baselineLabel: path.hops.join(' + '),
    };
  };
  for (const task of options.tasks) {
    for (const figure of task.figures) {
      for (const path of options.paths) {
        const own = ownValues(path.id, figure.id);
        if (!own) continue;
        records.push({
          section: 'relay',
          path: path.id,
          pathLabel: path.label,
          figure: figure.id,
          unit: figure.unit,
          kind: figure.kind,
          values: own,
          ...baselineOf(path, figure.id, figure.kind, own),
        });
      }
    }
  }
  const roles: ProcessRole[] = ['driver', 'mirror', 'relay', 'server', 'echo', 'agent'];
  for (const task of options.tasks) {
    for (const path of options.paths) {
      for (const role of roles) {
        for (const figure of processFigures) {
          const id = processFigureId(task.id, role, figure.counter);
          const own = ownValues(path.id, id);
          if (!own) continue;
          const reference = referenceValues(path, id);
          records.push({
            section: 'process',
            path: path.id,
            pathLabel: path.label,
            figure: id,
            unit: `${figure.unit} per message`,
            kind: 'time',
            values: own,
            ...(reference ? { baselineValues: reference, baselineLabel: `${path.reference}, same run` } : {}),
          });
        }
      }
    }
  }
  return records;
}
