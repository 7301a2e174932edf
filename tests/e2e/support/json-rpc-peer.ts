import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';

/** A JSON-RPC message as seen on the wire (kept loose on purpose: tests inspect raw frames). */
export type WireMessage = Record<string, unknown> & {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * A raw JSON-RPC peer for tests that must control ids and methods exactly (id 0, `$/cancel_request`, `_vendor/*`,
 * `session/fork`): send objects, wait for the next message matching a predicate. Works over an NDJSON stdio pair
 * ({@link ndjsonPeer}) or a WebSocket ({@link webSocketPeer}).
 */
export class JsonRpcPeer {
  private readonly received: WireMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private isClosed = false;

  constructor(private readonly write: (text: string) => void) {}

  /** Feeds one decoded message (called by the transport adapters). */
  deliver(message: WireMessage): void {
    this.received.push(message);
    for (const waiter of this.waiters) waiter();
  }

  /** Marks the transport closed; pending waits reject. */
  close(): void {
    this.isClosed = true;
    for (const waiter of this.waiters) waiter();
  }

  /** Every message received so far, in order. */
  messages(): readonly WireMessage[] {
    return this.received;
  }

  /** Sends one message. */
  send(message: WireMessage): void {
    this.write(JSON.stringify(message));
  }

  /** Sends a request and resolves with the response carrying the same id. */
  async request(id: string | number, method: string, params?: unknown): Promise<WireMessage> {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.next((message) => message.id === id && !('method' in message));
  }

  /** Resolves with the first received message (past or future) that matches and was not consumed before. */
  next(predicate: (message: WireMessage) => boolean): Promise<WireMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const index = this.received.findIndex(predicate);
        if (index !== -1) {
          this.waiters.delete(check);
          const [message] = this.received.splice(index, 1);
          resolve(message as WireMessage);
        } else if (this.isClosed) {
          this.waiters.delete(check);
          reject(new Error('JSON-RPC peer closed before a matching message arrived'));
        }
      };
      this.waiters.add(check);
      check();
    });
  }
}

/** A {@link JsonRpcPeer} over NDJSON streams (a child's stdin and stdout). */
export function ndjsonPeer(output: Writable, input: Readable): JsonRpcPeer {
  const peer = new JsonRpcPeer((text) => output.write(`${text}\n`));
  // Only each new chunk is searched for the line end, so a 16 MiB line costs one pass, not one per chunk.
  let pending: Buffer[] = [];
  input.on('data', (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const line = Buffer.concat([...pending, chunk.subarray(start, newline)])
        .toString('utf8')
        .trim();
      pending = [];
      start = newline + 1;
      if (line !== '') peer.deliver(JSON.parse(line) as WireMessage);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  input.on('close', () => peer.close());
  input.on('end', () => peer.close());
  return peer;
}

/** A {@link JsonRpcPeer} over an open WebSocket (one text message per JSON-RPC message). */
export function webSocketPeer(socket: WebSocket): JsonRpcPeer {
  const peer = new JsonRpcPeer((text) => socket.send(text));
  socket.on('message', (data, isBinary) => {
    if (!isBinary) peer.deliver(JSON.parse(data.toString()) as WireMessage);
  });
  socket.on('close', () => peer.close());
  return peer;
}

/** The `initialize` params of a client that advertises form elicitation. */
export const INITIALIZE_WITH_FORMS = {
  protocolVersion: 1,
  clientCapabilities: {
    elicitation: { form: {} },
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
  },
  clientInfo: { name: 'e2e-raw-client', version: '0.0.0' },
} as const;
