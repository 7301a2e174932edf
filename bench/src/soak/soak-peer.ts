// The soak's editor: a JSON-RPC peer over a mirror's stdio that sends requests, answers the agent's forms, and keeps
// the count of everything that went wrong (an answer that never came, came twice, or came for nothing it asked).
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../transports.js';

/** A message as it arrives (loosely typed: the soak checks fields itself). */
export interface SoakMessage {
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown> & { pad?: string; seq?: number };
  error?: { code: number; message: string };
}

/** What went wrong on one peer. */
export interface SoakFaults {
  /** Requests that got an error answer. */
  errors: number;
  /** Answers for ids that were not waiting (a duplicate, or never asked). */
  unexpected: number;
  /** Requests still unanswered after the stall deadline. */
  stalled: number;
  /** The first few descriptions, for the report. */
  samples: string[];
}

/** A JSON-RPC peer over NDJSON (the mirror's stdin and stdout). */
export class SoakPeer {
  readonly faults: SoakFaults = { errors: 0, unexpected: 0, stalled: 0, samples: [] };
  /** Forms the agent asked and this peer answered. */
  formsAnswered = 0;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve(message: SoakMessage): void; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly output: Writable,
    input: Readable,
    /** How long an answer may take before it counts as stalled (a 16 MiB echo through a cut included). */
    private readonly stallMs: number,
  ) {
    const splitter = new LineSplitter((line) => this.receive(JSON.parse(line) as SoakMessage));
    input.on('data', (chunk: Buffer) => splitter.push(chunk));
  }

  /** Sends a request and resolves with its answer (or with an error answer the peer made up for a stall). */
  request(method: string, params: unknown): Promise<SoakMessage> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.fault('stalled', `${method} #${id} unanswered after ${this.stallMs} ms`);
        resolve({ id, error: { code: 0, message: 'stalled' } });
      }, this.stallMs);
      this.waiting.set(id, { resolve, timer });
      this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.waiting.size;
  }

  fault(kind: keyof Omit<SoakFaults, 'samples'>, description: string): void {
    this.faults[kind] += 1;
    if (this.faults.samples.length < 10) this.faults.samples.push(description);
  }

  private receive(message: SoakMessage): void {
    if (message.method === 'elicitation/create' && message.id !== undefined) {
      // Answer with a token made from the question, so the turn's result proves this answer reached the agent.
      const asked = String(message.params?.message ?? '').replace(/^Confirm /, '');
      this.formsAnswered += 1;
      this.output.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { action: 'accept', content: { token: `ok:${asked}` } } })}\n`,
      );
      return;
    }
    if (message.method !== undefined) return; // notifications
    const waiter = typeof message.id === 'number' ? this.waiting.get(message.id) : undefined;
    if (waiter === undefined) {
      this.fault('unexpected', `an answer for id ${String(message.id)}, which was not waiting`);
      return;
    }
    this.waiting.delete(message.id as number);
    clearTimeout(waiter.timer);
    if (message.error !== undefined) this.fault('errors', `#${message.id}: ${message.error.message}`);
    waiter.resolve(message);
  }
}
