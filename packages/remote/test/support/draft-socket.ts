// A raw client of the RFD WebSocket as the durable-resume draft describes it: it reads the connection id from the 101,
// keeps every message as received (text and parsed, with its `_meta["acp/cursor"]`), and can drop its socket
// without a close frame, as a network does.
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

/** One message as received. */
export interface DraftMessage {
  readonly raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  readonly message: any;
  /** `params._meta["acp/cursor"]` or `result._meta["acp/cursor"]`, when it carries one. */
  readonly cursor: string | undefined;
}

/** The cursor a message carries, where the draft puts it. */
export function cursorOf(message: Record<string, unknown>): string | undefined {
  const body = (message.params ?? message.result) as { _meta?: Record<string, unknown> } | undefined;
  const cursor = body?._meta?.['acp/cursor'];
  return typeof cursor === 'string' ? cursor : undefined;
}

/** One socket of a draft client. */
export class DraftSocket {
  readonly messages: DraftMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Pings received from the server (its heartbeat: a clock the test can wait on without sleeping). */
  pings = 0;
  private readonly listeners = new Set<() => void>();
  private ended = false;

  private constructor(
    readonly socket: WebSocket,
    /** The `Acp-Connection-Id` of the 101. */
    readonly connectionId: string,
  ) {
    socket.on('error', () => {});
    socket.on('ping', () => {
      this.pings += 1;
      this.wake();
    });
    socket.on('message', (data) => {
      const raw = data.toString('utf8');
      const message = JSON.parse(raw) as Record<string, unknown>;
      this.messages.push({ raw, message, cursor: cursorOf(message) });
      this.wake();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => {
        this.ended = true;
        this.wake();
        resolve({ code, reason: reason.toString('utf8') });
      }),
    );
  }

  /** Opens a socket on `url` (the mount path), with `headers`. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<DraftSocket> {
    const socket = new WebSocket(url, { headers, maxPayload: 64 * 1024 * 1024 });
    let connectionId = '';
    // The 101 comes before 'open'.
    socket.once('upgrade', (response: IncomingMessage) => {
      connectionId = String(response.headers['acp-connection-id'] ?? '');
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
    });
    return new DraftSocket(socket, connectionId);
  }

  send(message: object): void {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  /** Sends `initialize` and waits for its answer (the connection's first message). */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  async initialize(id: number | string = 0): Promise<any> {
    this.send({ id, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    return (await this.until((message) => message.id === id)).message;
  }

  /** Sends `stream/resume` naming `connectionId` from `cursor` on (undefined: nothing processed). */
  resume(connectionId: string, cursor: string | undefined, id: number | string = 'resume'): void {
    this.send({ id, method: 'stream/resume', params: { connectionId, ...(cursor ? { cursor } : {}) } });
  }

  /** Resolves with the first message (from index `from` on) that matches; rejects when the socket closes first. */
  until(predicate: (message: DraftMessage['message']) => boolean, from = 0): Promise<DraftMessage> {
    return this.waitFor(() => this.messages.slice(from).find((entry) => predicate(entry.message)));
  }

  /** Waits until the server pinged `count` times. */
  async pinged(count: number): Promise<void> {
    await this.waitFor(() => (this.pings >= count ? true : undefined));
  }

  /** Waits until `count` messages arrived. */
  async count(count: number): Promise<void> {
    await this.waitFor(() => (this.messages.length >= count ? true : undefined));
  }

  /** Resolves with what `probe` finds once it finds something; rejects when the socket closes first. */
  private waitFor<T>(probe: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = probe();
        if (found !== undefined) {
          this.listeners.delete(check);
          resolve(found);
        } else if (this.ended) {
          this.listeners.delete(check);
          reject(new Error(`the socket closed after ${this.messages.length} messages`));
        }
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Drops the socket without a close frame (the TCP connection is destroyed, as by a network failure). */
  drop(): void {
    this.socket.terminate();
  }

  private wake(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
