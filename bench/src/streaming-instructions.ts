// Instructions per streamed update (main thread, callgrind) of each server of the streaming workload: the figure that
// does not move with other people's load. On a shared 2-core machine the wall-clock figures of the streaming section
// mostly measure the SDK client (zod parsing of every update), which is the same on both sides.
import { startHost } from './hosts/spawn-host.js';
import { callgrindControl, callgrindWrapper, dumpTotals } from './instructions-section.js';
import type { FigureRecord } from './report.js';
import { StreamingClient, streamingServers } from './streaming-section.js';

/** A fixed amount of traffic per task: `prompts` prompts of `prompt`, `messages` updates (or prompts) in all. */
const tasks = [
  { id: 'rtt', prompt: '0 0', prompts: 100, messages: 100 },
  { id: 'token', prompt: '8 256', prompts: 8, messages: 8 * 256 },
  { id: '16kib', prompt: '16384 64', prompts: 8, messages: 8 * 64 },
  { id: '1mib', prompt: '1048576 4', prompts: 4, messages: 16 },
] as const;

/**
 * Each server in turn under callgrind: three uncounted rounds of every task (the JIT tiers up), then `repeats` counted
 * runs per task between a zeroing and a dump of the counters. Ours gets the SDK's `AcpServer` as its baseline.
 *
 * @example
 * ```ts
 * const records = await runStreamingInstructions({ repeats: 2, directory: '/tmp/cg', log: console.error });
 * ```
 */
export async function runStreamingInstructions(options: {
  repeats: number;
  directory: string;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const wrapper = callgrindWrapper(options.directory);
  const counts = streamingServers.map(() => tasks.map((): number[] => []));
  for (const [side, server] of streamingServers.entries()) {
    options.log(`instructions: opening ${server.id} under callgrind`);
    const host = await startHost(server.host, server.args, wrapper);
    const client = await StreamingClient.open(host.url);
    try {
      const pid = host.child.pid!;
      for (let round = 0; round < 3; round += 1)
        for (const task of tasks)
          for (let index = 0; index < task.prompts; index += 1) await client.prompt(task.prompt);
      for (const [taskIndex, task] of tasks.entries()) {
        for (let repeat = 0; repeat < options.repeats; repeat += 1) {
          callgrindControl(['--zero', String(pid)]);
          for (let index = 0; index < task.prompts; index += 1) await client.prompt(task.prompt);
          counts[side]![taskIndex]!.push(dumpTotals(options.directory, pid).main / task.messages);
        }
      }
    } finally {
      await client.close();
      await host.close();
    }
  }
  const reference = streamingServers[0];
  return tasks.flatMap((task, taskIndex) =>
    streamingServers.map(
      (server, side): FigureRecord => ({
        section: 'instructions',
        path: server.id,
        pathLabel: server.label,
        figure: `streaming-${task.id}/server`,
        unit: `instructions per ${task.id === 'rtt' ? 'prompt' : 'update'}`,
        kind: 'time',
        values: counts[side]![taskIndex]!,
        ...(side === 0
          ? {}
          : { baselineValues: counts[0]![taskIndex]!, baselineLabel: `${reference.id}, same run` }),
      }),
    ),
  );
}
