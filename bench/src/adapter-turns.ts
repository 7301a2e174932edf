// What the adapter benchmarks share: a raw ACP client over an in-memory message stream that runs whole turns
// (`session/prompt` written, every message read back until its response), and rounds that interleave the sides turn
// by turn and take each turn's CPU time (process.cpuUsage) on its own.
import { type AgentApp, type AnyMessage, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { FigureRecord } from './report.js';

/** An ACP client reduced to what a turn needs: write requests, read every message the agent sends. */
export class RawClient {
  /** Updates read so far (keeps the reads observable). */
  updatesSeen = 0;
  readonly #writer: WritableStreamDefaultWriter<AnyMessage>;
  readonly #reader: ReadableStreamDefaultReader<AnyMessage>;
  #nextId = 0;
  #sessions: string[] = [];

  constructor(app: AgentApp) {
    const toAgent = new TransformStream<AnyMessage, AnyMessage>();
    const fromAgent = new TransformStream<AnyMessage, AnyMessage>();
    app.connect({ readable: toAgent.readable, writable: fromAgent.writable });
    this.#writer = toAgent.writable.getWriter();
    this.#reader = fromAgent.readable.getReader();
  }

  /** Sends a request and reads messages until its response; returns the result and how many updates came first. */
  async request(method: string, params: unknown): Promise<{ result: unknown; updates: number }> {
    const id = ++this.#nextId;
    await this.#writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
    let updates = 0;
    for (;;) {
      const { value, done } = await this.#reader.read();
      if (done) throw new Error('the agent closed the connection');
      if ('id' in value && value.id === id) {
        if ('error' in value) throw new Error(`${method} failed: ${JSON.stringify(value.error)}`);
        return { result: (value as { result: unknown }).result, updates };
      }
      updates += 1;
    }
  }

  /** Opens `count` sessions, each used for one turn (so every turn starts from the same empty history). */
  async openSessions(count: number, mcpServers: readonly unknown[] = []): Promise<void> {
    this.#sessions = [];
    for (let index = 0; index < count; index += 1) {
      const { result } = await this.request(methods.agent.session.new, { cwd: '/', mcpServers });
      this.#sessions.push((result as { sessionId: string }).sessionId);
    }
  }

  async prompt(expectedUpdates: number): Promise<void> {
    const sessionId = this.#sessions.pop();
    if (sessionId === undefined) throw new Error('no fresh session left: call openSessions first');
    const { result, updates } = await this.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    if (updates < expectedUpdates || (result as { stopReason?: string }).stopReason !== 'end_turn') {
      throw new Error(
        `the turn sent ${updates} updates (expected ${expectedUpdates}): ${JSON.stringify(result)}`,
      );
    }
    this.updatesSeen += updates;
  }
}

export async function connectedClient(app: AgentApp): Promise<RawClient> {
  const client = new RawClient(app);
  await client.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  return client;
}

/** Turns per side and round: at most the 100 sessions a connection keeps open by default. */
export const TURNS_PER_ROUND = 24;

/** One side of a comparison: `prepare` runs before a round, outside the measured time; then one turn at a time. */
export interface Side {
  readonly name: string;
  prepare(): Promise<void>;
  turn(): Promise<void>;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * One round of a group: every side runs TURNS_PER_ROUND turns, interleaved turn by turn (the order rotates each
 * time), each turn's CPU time (user + system, all threads) taken on its own; a side's figure is the median of its
 * turns, so a turn that caught a garbage collection or a neighbour's burst does not move it.
 */
export async function measureRound(sides: readonly Side[]): Promise<number[]> {
  for (const side of sides) await side.prepare();
  const samples = sides.map((): number[] => []);
  for (let turn = 0; turn < TURNS_PER_ROUND; turn += 1) {
    for (let offset = 0; offset < sides.length; offset += 1) {
      const index = (turn + offset) % sides.length;
      const start = process.cpuUsage();
      await (sides[index] as Side).turn();
      const used = process.cpuUsage(start);
      samples[index]?.push(used.user + used.system);
    }
  }
  return samples.map(median);
}

/** How an adapter section names its sides in the report. */
export interface AdapterLabels {
  readonly section: string;
  /** The adapter's own turn, e.g. `createAiSdkAgent turn`. */
  readonly ours: string;
  /** The smallest ACP agent around the same stream. */
  readonly minimal: string;
  /** The framework's stream drained without ACP. */
  readonly direct: string;
  /** The figure-name prefix of the direct side, e.g. `streamtext`. */
  readonly directFigure: string;
}

/**
 * The figures of one group of an adapter section from its per-turn CPU (`[direct, minimal, ours]`, one value per
 * round): CPU per unit for ours and the direct stream, the adapter's own cost (ours − minimal) and what ACP adds
 * (ours − direct).
 */
export function adapterFigures(
  labels: AdapterLabels,
  path: string,
  what: string,
  count: number,
  [direct, minimal, ours]: number[][] = [],
): FigureRecord[] {
  const per = (values: number[] | undefined) => (values ?? []).map((value) => value / count);
  const minus = (values: number[], baseline: number[]) =>
    values.map((value, index) => value - (baseline[index] ?? 0));
  const [directPer, minimalPer, oursPer] = [per(direct), per(minimal), per(ours)];
  const record = (figure: string, pathLabel: string, values: number[], baseline?: [number[], string]) => ({
    section: labels.section,
    path,
    pathLabel,
    figure,
    unit: 'µs CPU',
    kind: 'time' as const,
    values,
    ...(baseline === undefined ? {} : { baselineValues: baseline[0], baselineLabel: baseline[1] }),
  });
  return [
    record(`us-per-${what}`, `${labels.ours}, CPU per ${what}`, oursPer, [minimalPer, labels.minimal]),
    record(`${labels.directFigure}-us-per-${what}`, `${labels.direct}, CPU per ${what}`, directPer),
    record(
      `overhead-us-per-${what}`,
      `adapter's own cost per ${what} (ours − minimal ACP agent)`,
      minus(oursPer, minimalPer),
    ),
    record(`acp-us-per-${what}`, `ACP cost per ${what} (ours − ${labels.direct})`, minus(oursPer, directPer)),
  ];
}
