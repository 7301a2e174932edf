// The streaming workload (issue 32 item 5): an in-process SDK agent streaming `session/update`s (token-sized, 16 KiB,
// 1 MiB) to the SDK's own `createHttpStream` client, through our Streamable HTTP server (`serveAcp`) and through the
// SDK's `AcpServer`, in the same interleaved rounds. This is the hot path of every ACP turn over HTTP: one prompt POST,
// then a stream of SSE events on the session's stream, then the prompt's answer.
import { performance } from 'node:perf_hooks';
import { type ClientConnection, client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { benchToken } from './hosts/bench-token.js';
import { type RunningHost, startHost } from './hosts/spawn-host.js';
import { difference, readCounters } from './process-stats.js';
import type { FigureRecord } from './report.js';
import { quantile } from './stats.js';

/** One task: a prompt text the streaming agent reads as `<bytes> <count>`, and how its figure is taken. */
interface StreamingTask {
  readonly id: string;
  readonly label: string;
  readonly prompt: string;
  readonly figure: string;
  readonly unit: string;
  readonly kind: 'time' | 'rate';
}

/** What each task measures; exported for the smoke mode's selection. */
export const streamingTasks: readonly StreamingTask[] = [
  // A prompt answered with no update: the turn's round trip (POST, then the answer on the session's SSE stream).
  {
    id: 'rtt',
    label: 'prompt round trip',
    prompt: '0 0',
    figure: 'prompt-rtt-p50',
    unit: 'µs',
    kind: 'time',
  },
  // A model's token deltas: 8 characters each (a ~150-byte event), 256 a turn.
  {
    id: 'token',
    label: 'token-sized updates',
    prompt: '8 256',
    figure: 'updates-per-s-token',
    unit: 'updates/s',
    kind: 'rate',
  },
  {
    id: '16kib',
    label: '16 KiB updates',
    prompt: '16384 64',
    figure: 'mb-per-s-16kib',
    unit: 'MB/s',
    kind: 'rate',
  },
  {
    id: '1mib',
    label: '1 MiB updates',
    prompt: '1048576 4',
    figure: 'mb-per-s-1mib',
    unit: 'MB/s',
    kind: 'rate',
  },
];

/** The two servers compared: ours and the SDK's, each serving the streaming agent in its own process. */
export const streamingServers = [
  {
    id: 'sdk-acp-server-http-streaming',
    label: 'SDK `AcpServer` (Streamable HTTP), streaming agent',
    host: 'sdk-acp-server-host',
    args: ['--streaming'],
  },
  {
    id: 'serve-acp-http-streaming',
    label: '`serveAcp` over Streamable HTTP, streaming agent',
    host: 'serve-acp-host',
    args: ['--http', '--streaming'],
  },
] as const;

/** An SDK client connected over `createHttpStream` with one session open, counting what it receives. */
export class StreamingClient {
  updates = 0;
  textBytes = 0;
  private constructor(
    private readonly connection: ClientConnection,
    private readonly sessionId: string,
  ) {}

  static async open(url: string, fetch?: typeof globalThis.fetch): Promise<StreamingClient> {
    let self: StreamingClient | undefined;
    const connection = client({ name: 'acpkit-bench-streaming' })
      .onNotification(methods.client.session.update, ({ params }) => {
        const { update } = params;
        if (self === undefined || update.sessionUpdate !== 'agent_message_chunk') return;
        self.updates += 1;
        if (update.content.type === 'text') self.textBytes += update.content.text.length;
      })
      .connect(
        createHttpStream(url, {
          headers: { Authorization: `Bearer ${benchToken}` },
          ...(fetch === undefined ? {} : { fetch }),
        }),
      );
    await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, {
      cwd: '/',
      mcpServers: [],
    });
    self = new StreamingClient(connection, sessionId);
    return self;
  }

  async prompt(text: string): Promise<void> {
    const result = await this.connection.agent.request(methods.agent.session.prompt, {
      sessionId: this.sessionId,
      prompt: [{ type: 'text', text }],
    });
    if (result.stopReason !== 'end_turn') throw new Error(`prompt ended with ${result.stopReason}`);
  }

  async close(): Promise<void> {
    this.connection.close();
    await this.connection.closed.catch(() => {});
  }
}

/**
 * Runs `task` on `driver` for one slice: the round trip's p50, or what was streamed per second; and the server
 * process's CPU time per message (per prompt for the round trip, per update otherwise), the steadier figure on a
 * shared machine.
 */
async function slice(
  driver: StreamingClient,
  serverPid: number,
  task: StreamingTask,
  sliceMs: number,
): Promise<{ value: number; serverCpuUs: number }> {
  const times: number[] = [];
  const countersBefore = readCounters(serverPid);
  const startUpdates = driver.updates;
  const startBytes = driver.textBytes;
  const started = performance.now();
  let now = started;
  do {
    const before = now;
    await driver.prompt(task.prompt);
    now = performance.now();
    times.push((now - before) * 1_000);
  } while (now - started < sliceMs);
  const countersAfter = readCounters(serverPid);
  const seconds = (now - started) / 1_000;
  const updates = driver.updates - startUpdates;
  const messages = task.id === 'rtt' ? times.length : updates;
  const serverCpuUs =
    countersBefore && countersAfter
      ? difference(countersAfter, countersBefore).cpuNs / 1_000 / messages
      : Number.NaN;
  if (task.id === 'rtt') return { value: quantile(times, 0.5), serverCpuUs };
  if (task.id === 'token') return { value: updates / seconds, serverCpuUs };
  return { value: (driver.textBytes - startBytes) / 1e6 / seconds, serverCpuUs };
}

/**
 * Measures every task on both servers: a warm-up round, then `repeats` rounds in which each task runs one slice per
 * server, the order rotating every round. Returns our server's figures with the SDK's of the same rounds as baseline.
 *
 * @example
 * ```ts
 * const records = await runStreamingSection({ repeats: 7, sliceMs: 500, tasks: streamingTasks, log: console.error });
 * ```
 */
export async function runStreamingSection(options: {
  repeats: number;
  sliceMs: number;
  tasks: readonly StreamingTask[];
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const hosts: RunningHost[] = [];
  const drivers: StreamingClient[] = [];
  try {
    for (const server of streamingServers) {
      const host = await startHost(server.host, server.args);
      hosts.push(host);
      drivers.push(await StreamingClient.open(host.url));
    }
    const values = streamingServers.map(() => options.tasks.map((): number[] => []));
    const cpu = streamingServers.map(() => options.tasks.map((): number[] => []));
    for (let round = 0; round <= options.repeats; round += 1) {
      for (const [taskIndex, task] of options.tasks.entries()) {
        for (let turn = 0; turn < streamingServers.length; turn += 1) {
          const side = (turn + round) % streamingServers.length;
          const sliceMs = round === 0 ? Math.min(options.sliceMs, 200) : options.sliceMs;
          const { value, serverCpuUs } = await slice(drivers[side]!, hosts[side]!.child.pid!, task, sliceMs);
          if (round > 0) {
            values[side]![taskIndex]!.push(value);
            cpu[side]![taskIndex]!.push(serverCpuUs);
          }
        }
      }
      if (round > 0) options.log(`streaming: round ${round}/${options.repeats}`);
    }
    const [reference, ours] = streamingServers;
    return options.tasks.flatMap((task, taskIndex): FigureRecord[] => [
      ...[reference, ours].map(
        (server, side): FigureRecord => ({
          section: 'streaming',
          path: server.id,
          pathLabel: server.label,
          figure: `server-cpu-us-${task.id}`,
          unit: `µs CPU per ${task.id === 'rtt' ? 'prompt' : 'update'}`,
          kind: 'time',
          values: cpu[side]![taskIndex]!,
          ...(side === 1
            ? { baselineValues: cpu[0]![taskIndex]!, baselineLabel: `${reference.id}, same run` }
            : {}),
        }),
      ),
      {
        section: 'streaming',
        path: reference.id,
        pathLabel: reference.label,
        figure: task.figure,
        unit: task.unit,
        kind: task.kind,
        values: values[0]![taskIndex]!,
      },
      {
        section: 'streaming',
        path: ours.id,
        pathLabel: ours.label,
        figure: task.figure,
        unit: task.unit,
        kind: task.kind,
        values: values[1]![taskIndex]!,
        baselineValues: values[0]![taskIndex]!,
        baselineLabel: `${reference.id}, same run`,
      },
    ]);
  } finally {
    for (const driver of drivers) await driver.close();
    for (const host of hosts) await host.close();
  }
}
