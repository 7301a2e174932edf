// A client of the RFD WebSocket written from the durable-resume draft alone (raw `ws`, nothing from our packages):
// it keeps the last cursor it processed, and when its socket drops it opens another and sends `stream/resume`, as
// often as it takes. Messages it sent that the cut lost are its own to send again: after each resume it asks the
// sequence agent what arrived (`_test/received`) and sends the rest again, in order.
import { WebSocket } from 'ws';

/** A message as received, with its cursor (`params._meta` / `result._meta` `acp/cursor`). */
export interface ReceivedMessage {
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  readonly message: any;
  readonly cursor: string | undefined;
}

function cursorOf(message: Record<string, unknown>): string | undefined {
  const body = (message.params ?? message.result) as { _meta?: Record<string, unknown> } | undefined;
  const cursor = body?._meta?.['acp/cursor'];
  return typeof cursor === 'string' ? cursor : undefined;
}

/**
 * One RFD WebSocket connection, resumed across drops. `processed` holds every message processed, once each (a repeat
 * of a cursor already processed is dropped), `resumes` how many `stream/resume`s the server honoured.
 */
export class ResumingDraftClient {
  readonly processed: ReceivedMessage[] = [];
  resumes = 0;
  /** Sockets the client opened (the first, and one per resume attempt). */
  sockets = 0;
  private socket: WebSocket | undefined;
  private connectionId = '';
  private lastCursor: string | undefined;
  private readonly seen = new Set<string>();
  /** Requests sent, in order (the `seq`s of `_test/echo`), for sending again what a cut lost. */
  private readonly sent: Array<{ seq: number; message: object }> = [];
  private listeners = new Set<() => void>();
  private dropped = false;
  private attempt = 0;

  constructor(private readonly url: string) {}

  /** Opens the connection and initializes it. */
  async start(): Promise<void> {
    await this.open();
    this.transmit({ id: 'init', method: 'initialize', params: { protocolVersion: 1 } });
    await this.answer('init');
  }

  /** Sends a sequence request (kept to be sent again when a cut loses it). */
  sendSeq(seq: number, message: object): void {
    this.sent.push({ seq, message });
    this.transmit(message);
  }

  /** Resolves with the answer to `id`, resuming the connection as often as its socket drops meanwhile. */
  async answer(id: string | number): Promise<ReceivedMessage> {
    for (;;) {
      const found = this.processed.find((received) => received.message.id === id && !received.message.method);
      if (found !== undefined) return found;
      if (this.dropped) await this.resume();
      else await new Promise<void>((resolve) => this.listeners.add(resolve));
    }
  }

  close(): void {
    this.socket?.terminate();
  }

  private transmit(message: object): void {
    this.socket?.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  private wake(): void {
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener();
  }

  /** Opens a socket; false when it could not be opened (the network cut it during the handshake). */
  private async open(): Promise<boolean> {
    this.sockets += 1;
    const socket = new WebSocket(this.url);
    socket.on('error', () => {});
    socket.once('upgrade', (response) => {
      if (this.connectionId === '') this.connectionId = String(response.headers['acp-connection-id']);
    });
    socket.on('message', (data) => {
      if (socket !== this.socket) return;
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      const cursor = cursorOf(message);
      if (cursor !== undefined) {
        if (this.seen.has(cursor)) return;
        this.seen.add(cursor);
        this.lastCursor = cursor;
      }
      this.processed.push({ message, cursor });
      this.wake();
    });
    socket.once('close', () => {
      if (socket !== this.socket) return;
      this.dropped = true;
      this.wake();
    });
    this.socket = socket;
    this.dropped = false;
    const opened = await new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('close', () => resolve(false));
    });
    return opened;
  }

  /**
   * The socket dropped: a new one, `stream/resume` from the last processed cursor, until one is answered; then what
   * the agent never received is sent again.
   */
  private async resume(): Promise<void> {
    for (;;) {
      if (!(await this.open())) continue;
      this.attempt += 1;
      const id = `resume-${this.attempt}`;
      this.transmit({
        id,
        method: 'stream/resume',
        params: { connectionId: this.connectionId, ...(this.lastCursor ? { cursor: this.lastCursor } : {}) },
      });
      const outcome = await this.until(
        (received) => received.message.id === id || received.message.method === 'stream/resume_failed',
      );
      if (outcome === undefined) continue;
      if (outcome.message.method === 'stream/resume_failed')
        throw new Error(`stream/resume refused: ${JSON.stringify(outcome.message.params)}`);
      this.resumes += 1;
      // What the agent received, so the rest of what was sent goes again (a cut keeps a prefix, in order).
      const query = `received-${this.attempt}`;
      this.transmit({ id: query, method: '_test/received', params: {} });
      const answer = await this.until((received) => received.message.id === query);
      if (answer === undefined) continue;
      const received = new Set<number>(answer.message.result.received);
      for (const { seq, message } of this.sent) if (!received.has(seq)) this.transmit(message);
      return;
    }
  }

  /** The first message processed on the current socket that matches; undefined when the socket drops first. */
  private async until(
    predicate: (received: ReceivedMessage) => boolean,
  ): Promise<ReceivedMessage | undefined> {
    const from = this.processed.length;
    for (;;) {
      const found = this.processed.slice(from).find(predicate);
      if (found !== undefined) return found;
      if (this.dropped) return undefined;
      await new Promise<void>((resolve) => this.listeners.add(resolve));
    }
  }
}
