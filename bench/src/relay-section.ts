// Relay paths: latency, pipelined throughput, large messages, interleaved path by path within every repeat.
import { echoParams, measureOne, measurePipelined, measureRoundTrips } from './measure.js';
import type { OpenPath, PathDefinition, PathId } from './paths.js';
import { processTreeCpuMs } from './process-tree-cpu.js';
import type { FigureRecord } from './report.js';
import type { RpcClient } from './rpc-client.js';
import { combineHops, type FigureKind, quantile } from './stats.js';

/** One measurement on one open path, producing one or more figures. */
interface RelayTask {
  id: string;
  figures: { id: string; unit: string; kind: FigureKind }[];
  run(client: RpcClient, sliceMs: number): Promise<number[]>;
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
      return [quantile(samples, 0.5), quantile(samples, 0.99)];
    },
  },
  {
    id: 'small-throughput',
    figures: [
      { id: 'msgs-per-s', unit: 'msg/s', kind: 'rate' },
      // CPU of every process of the path (driver included) per message: robust against other people's load.
      { id: 'cpu-us-per-msg', unit: 'µs CPU', kind: 'time' },
    ],
    async run(client, sliceMs) {
      const cpuBefore = processTreeCpuMs();
      const result = await measurePipelined(client, small, 64, sliceMs);
      const cpuAfter = processTreeCpuMs();
      const cpuPerMessage =
        cpuBefore === undefined || cpuAfter === undefined
          ? Number.NaN
          : ((cpuAfter - cpuBefore) * 1000) / result.messages;
      return [result.messages / result.seconds, cpuPerMessage];
    },
  },
  {
    id: '16kib',
    figures: [{ id: 'mb-per-s-16kib', unit: 'MB/s', kind: 'rate' }],
    async run(client, sliceMs) {
      return [megabytesPerSecond(await measurePipelined(client, medium, 16, sliceMs))];
    },
  },
  {
    id: '1mib',
    figures: [{ id: 'mb-per-s-1mib', unit: 'MB/s', kind: 'rate' }],
    async run(client, sliceMs) {
      return [megabytesPerSecond(await measurePipelined(client, large, 4, sliceMs))];
    },
  },
  {
    id: '16mib',
    figures: [{ id: 'relay-16mib-ms', unit: 'ms', kind: 'time' }],
    async run(client) {
      return [await measureOne(client, huge)];
    },
  },
];

/** Options of the relay section. */
export interface RelaySectionOptions {
  paths: PathDefinition[];
  tasks: RelayTask[];
  repeats: number;
  sliceMs: number;
  log: (line: string) => void;
}

/**
 * Opens every path once, then runs `repeats` rounds; in each round every task runs one slice per path in turn
 * (A B C A B C …), so drift of the machine hits all paths alike and ratios are taken within a round.
 *
 * @example
 * ```ts
 * const records = await runRelaySection({ paths, tasks: relayTasks, repeats: 5, sliceMs: 500, log: console.error });
 * ```
 */
export async function runRelaySection(options: RelaySectionOptions): Promise<FigureRecord[]> {
  const open = new Map<PathId, OpenPath>();
  const values = new Map<string, number[]>();
  const key = (path: PathId, figure: string) => `${path}\u0000${figure}`;
  try {
    for (const path of options.paths) {
      options.log(`opening ${path.id}`);
      open.set(path.id, await path.open());
    }
    // Round 0 warms up JIT and socket buffers and is not recorded.
    for (let round = 0; round <= options.repeats; round += 1) {
      const sliceMs = round === 0 ? Math.max(100, options.sliceMs / 2) : options.sliceMs;
      for (const task of options.tasks) {
        for (const path of options.paths) {
          const figures = await task.run(open.get(path.id)!.client, sliceMs);
          if (round === 0) continue;
          task.figures.forEach((figure, index) => {
            const list = values.get(key(path.id, figure.id)) ?? [];
            list.push(figures[index]!);
            values.set(key(path.id, figure.id), list);
          });
        }
      }
      options.log(round === 0 ? 'warm-up round done' : `round ${round}/${options.repeats} done`);
    }
  } finally {
    for (const path of open.values()) await path.close();
  }
  const records: FigureRecord[] = [];
  for (const task of options.tasks) {
    for (const figure of task.figures) {
      for (const path of options.paths) {
        const own = values.get(key(path.id, figure.id));
        if (!own) continue;
        const record: FigureRecord = {
          section: 'relay',
          path: path.id,
          pathLabel: path.label,
          figure: figure.id,
          unit: figure.unit,
          kind: figure.kind,
          values: own,
        };
        // Our relays are compared with their same-run minimal reference; the references and serveAcp with the
        // raw hops they are made of.
        const referenceValues = path.reference ? values.get(key(path.reference, figure.id)) : undefined;
        const hopValues = path.hops.map((hop) => values.get(key(hop, figure.id)));
        if (path.reference && referenceValues) {
          record.baselineValues = referenceValues;
          record.baselineLabel = `${path.reference}, same run`;
        } else if (path.hops.length > 0 && hopValues.every((list) => list !== undefined)) {
          record.baselineValues = own.map((_, repeat) =>
            combineHops(
              figure.kind,
              hopValues.map((list) => list![repeat]!),
            ),
          );
          record.baselineLabel = path.hops.join(' + ');
        }
        records.push(record);
      }
    }
  }
  return records;
}
