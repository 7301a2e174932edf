// A server of the RFD WebSocket that speaks the durable-resume draft and nothing of ours (no acpkit.resume.v1), written
// from the draft with raw `ws`: one connection, cursors on what it sends, `stream/resume` answered with a replay. The
// test drives it (what it sends, when it drops the socket) and reads what it received.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
type Message = any;

/** One message the server sent, as the stream numbers it (a message without a body object carries no cursor). */
interface SentMessage {
  readonly seq: number;
  readonly text: string;
}

/**
 * The draft's server side for one connection (`Acp-Connection-Id: c1`): `initialize` is answered with retention
 * advertised, every message sent is numbered (its cursor in `result._meta` / `params._meta`), a socket whose first
 * message is `stream/resume` gets the answer and every message after the cursor again. `pong: false` answers no
 * ping (nothing the client sends is ever confirmed by a pong).
 */
export class DraftServer {
  /** Every message read from the client, in order, with the number of the socket it came on (from 1). */
  readonly received: Array<{ readonly socket: number; readonly message: Message }> = [];
  private readonly sent: SentMessage[] = [];
  private socket: WebSocket | undefined;
  private sockets = 0;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly server: WebSocketServer) {
    server.on('headers', (headers: string[]) => headers.push('Acp-Connection-Id: c1'));
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(options: { readonly pong: boolean }): Promise<DraftServer> {
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      autoPong: options.pong,
      // Selects no subprotocol: the client's acpkit.resume.v1 offer goes unanswered.
      handleProtocols: () => false,
    });
    await once(server, 'listening');
    return new DraftServer(server);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/acp`;
  }

  /** Sends `message` on the connection, numbered; `cursor: false` sends it without one (as an error answer is). */
  send(message: object, cursor = true): void {
    const seq = this.sent.length + 1;
    const body = message as { params?: Record<string, unknown>; result?: Record<string, unknown> };
    const slot = 'result' in body ? 'result' : 'params';
    const stamped =
      cursor && body[slot] !== undefined
        ? { ...body, [slot]: { ...body[slot], _meta: { 'acp/cursor': String(seq) } } }
        : body;
    const text = JSON.stringify({ jsonrpc: '2.0', ...stamped });
    this.sent.push({ seq, text });
    this.socket?.send(text);
  }

  /** Drops the current socket without a close frame (a network failure, as the client sees it). */
  drop(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  /** Resolves once `count` messages were received. */
  async receivedCount(count: number): Promise<void> {
    while (this.received.length < count) await new Promise<void>((resolve) => this.waiters.add(resolve));
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(socket: WebSocket): void {
    this.sockets += 1;
    const number = this.sockets;
    let first = true;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Message;
      this.received.push({ socket: number, message });
      for (const waiter of [...this.waiters]) waiter();
      this.waiters.clear();
      const wasFirst = first;
      first = false;
      if (wasFirst && message.method === 'stream/resume') {
        this.socket = socket;
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { _meta: {} } }));
        const after = Number(message.params.cursor ?? 0);
        for (const entry of this.sent) if (entry.seq > after) socket.send(entry.text);
        return;
      }
      if (message.method === 'initialize') {
        this.socket = socket;
        this.send({
          id: message.id,
          result: {
            protocolVersion: 1,
            agentCapabilities: {
              _meta: { 'acp/transport': { resumable: { retentionMessages: 100, retentionSeconds: 60 } } },
            },
          },
        });
      }
    });
  }
}
