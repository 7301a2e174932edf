// A raw client of the resume wire (`acpkit.resume.v1`) for tests that must misbehave on purpose: it offers the
// subprotocol, keeps every frame in arrival order, and acknowledges only when the test says so.
import { WebSocket } from 'ws';
import { RESUME_SUBPROTOCOL } from '../../src/websocket/resume/resume-protocol.js';

/** One frame as received: control frames (binary) parsed, data frames (text) parsed as JSON-RPC. */
export type ReceivedFrame =
  | { readonly binary: true; readonly control: Record<string, unknown> }
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  | { readonly binary: false; readonly message: any };

/** A resume-wire client that never acknowledges unless {@link acknowledge} is called. */
export class ResumeWireClient {
  readonly frames: ReceivedFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Data frames received so far (what an acknowledgement counts). */
  received = 0;
  private readonly listeners = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on('error', () => {});
    socket.on('message', (data: Buffer, binary: boolean) => {
      if (binary) this.frames.push({ binary: true, control: JSON.parse(data.toString('utf8')) });
      else {
        this.received += 1;
        this.frames.push({ binary: false, message: JSON.parse(data.toString('utf8')) });
      }
      for (const listener of [...this.listeners]) listener();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
    void this.closed.then(() => {
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** Opens a connection offering the subprotocol (with `headers`, e.g. a resume's). */
  static async open(url: string, headers: Record<string, string> = {}): Promise<ResumeWireClient> {
    const socket = new WebSocket(url, [RESUME_SUBPROTOCOL], { headers, maxPayload: 64 * 1024 * 1024 });
    const client = new ResumeWireClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
      socket.once('error', reject);
    });
    return client;
  }

  /** Data frames (JSON-RPC messages) received so far, in order. */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  messages(): any[] {
    return this.frames.flatMap((frame) => (frame.binary ? [] : [frame.message]));
  }

  /** The server's `welcome` (the first control frame). */
  async welcome(): Promise<Record<string, unknown>> {
    await this.until(() => this.frames.some((frame) => frame.binary));
    const frame = this.frames.find((candidate) => candidate.binary);
    return (frame as { control: Record<string, unknown> }).control;
  }

  /** Resolves once `condition` holds (checked at each frame and at the close); rejects if the socket closed first. */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (condition()) {
          this.listeners.delete(check);
          resolve();
        } else if (this.socket.readyState === WebSocket.CLOSED) {
          this.listeners.delete(check);
          reject(new Error('the connection closed first'));
        }
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Resolves with the answer to request `id`. */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  async response(id: number | string): Promise<any> {
    const isAnswer = (message: { id?: unknown; method?: unknown }) =>
      message.id === id && message.method === undefined;
    await this.until(() => this.messages().some(isAnswer));
    return this.messages().find(isAnswer);
  }

  request(id: number | string, method: string, params: unknown = {}): void {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  /** Acknowledges every data frame received so far. */
  acknowledge(): void {
    this.socket.send(Buffer.from(JSON.stringify({ type: 'ack', received: this.received })), { binary: true });
  }
}
