// The page's ACP connection over Streamable HTTP: POSTs out, two SSE streams in (the connection's and the session's),
// each reopened with Last-Event-ID after a drop so nothing is lost.
import { SseParser } from './sse-parser.js';

/** A JSON-RPC message as it came off the wire. */
export interface JsonRpcMessage {
  readonly jsonrpc?: '2.0';
  readonly id?: number | string | null;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** What the connection tells the page about its streams. */
export type LinkState = 'connecting' | 'open' | 'reconnecting' | 'ended' | 'replaced';

/** Which stream a message came on: the connection's, or the session's. */
export type StreamKey = 'connection' | 'session';

export interface ConnectionHandlers {
  /** A message arrived (event id `id` of stream `stream`). */
  onMessage(message: JsonRpcMessage, stream: StreamKey, id: number | undefined): void;
  onLinkState(state: LinkState, detail?: string): void;
  /** The server no longer holds the events after `from`: some were lost (the page shows it). */
  onGap(stream: StreamKey): void;
}

/** An error answer of the agent, or a refusal of the server. */
export class AcpCallError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000];

/** One SSE stream, reopened after drops from the last event it received. */
class EventStream {
  private controller: AbortController | undefined;
  private stopped = false;

  constructor(
    private readonly key: StreamKey,
    private readonly headers: () => Record<string, string>,
    public lastEventId: number,
    private readonly owner: ConnectionHandlers,
    private readonly resumeFrom: number | undefined,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    let from: number | undefined = this.resumeFrom;
    while (!this.stopped) {
      this.controller = new AbortController();
      let ending: string | undefined;
      try {
        const headers: Record<string, string> = { ...this.headers(), accept: 'text/event-stream' };
        if (from !== undefined) headers['last-event-id'] = String(from);
        const response = await fetch('/acp', { headers, signal: this.controller.signal, cache: 'no-store' });
        if (response.status === 409) {
          // The events after `from` are gone: take what is still held, from the last event this page saw.
          this.owner.onGap(this.key);
          from = this.lastEventId;
          if (from === this.resumeFrom) from = undefined;
          continue;
        }
        if (response.status === 404 || response.status === 401) {
          this.owner.onLinkState('ended', (await response.text()).trim());
          return;
        }
        if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
        attempt = 0;
        this.owner.onLinkState('open');
        const parser = new SseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const item of parser.push(value)) {
            if (item.kind === 'comment') {
              if (item.text.startsWith('closed')) ending = 'ended';
              else if (item.text.startsWith('replaced')) ending = 'replaced';
              continue;
            }
            if (item.id !== undefined) this.lastEventId = item.id;
            let message: JsonRpcMessage;
            try {
              message = JSON.parse(item.data) as JsonRpcMessage;
            } catch {
              continue;
            }
            this.owner.onMessage(message, this.key, item.id);
          }
        }
      } catch (error) {
        if (this.stopped) return;
        if ((error as Error).name === 'AbortError') return;
      }
      if (ending === 'ended') {
        this.owner.onLinkState('ended', 'The agent connection ended.');
        return;
      }
      if (ending === 'replaced') {
        this.owner.onLinkState('replaced', 'This conversation was opened in another tab.');
        return;
      }
      if (this.stopped) return;
      this.owner.onLinkState('reconnecting');
      from = this.lastEventId;
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)] as number;
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What a page needs to pick its connection up again after a reload. */
export interface ConnectionResume {
  readonly connectionId: string;
  readonly sessionId: string | undefined;
  readonly nextId: number;
}

/**
 * The page's side of one ACP connection. Requests it sends are answered on the streams; the answers are matched by
 * id here. Requests the agent sends go to `onMessage` and are answered with {@link respond}.
 */
export class AcpConnection {
  private connectionId: string | undefined;
  private sessionId: string | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private connectionStream: EventStream | undefined;
  private sessionStream: EventStream | undefined;

  constructor(private readonly handlers: ConnectionHandlers) {}

  get id(): string | undefined {
    return this.connectionId;
  }

  get currentSessionId(): string | undefined {
    return this.sessionId;
  }

  /** What to keep for a reload. */
  snapshot(): ConnectionResume | undefined {
    return this.connectionId === undefined
      ? undefined
      : { connectionId: this.connectionId, sessionId: this.sessionId, nextId: this.nextId };
  }

  /** Opens a new connection: `initialize` (its answer comes in the POST's body), then the connection stream. */
  async initialize(params: unknown): Promise<unknown> {
    const id = this.nextId++;
    const response = await fetch('/acp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params }),
    });
    if (!response.ok)
      throw new AcpCallError(`The agent did not start: ${(await response.text()).trim()}`, response.status);
    const connectionId = response.headers.get('acp-connection-id');
    if (connectionId === null) throw new AcpCallError('The server sent no connection id.', 0);
    this.connectionId = connectionId;
    const answer = (await response.json()) as JsonRpcMessage;
    this.openConnectionStream(undefined);
    if (answer.error !== undefined)
      throw new AcpCallError(answer.error.message, answer.error.code, answer.error.data);
    return answer.result;
  }

  /**
   * Picks up a connection after a reload: both streams reopen from `replayFrom` (0: every event the server still
   * holds, so the conversation is rebuilt), falling back to what is left when some are gone.
   */
  resume(saved: ConnectionResume, replayFrom: number): void {
    this.connectionId = saved.connectionId;
    this.nextId = saved.nextId;
    this.openConnectionStream(replayFrom);
    if (saved.sessionId !== undefined) this.useSession(saved.sessionId, replayFrom);
  }

  /** Makes `sessionId` the session whose stream the page reads (closing the previous one's). */
  useSession(sessionId: string, replayFrom?: number): void {
    if (this.sessionId === sessionId && this.sessionStream !== undefined) return;
    this.sessionStream?.stop();
    this.sessionId = sessionId;
    this.sessionStream = new EventStream(
      'session',
      () => this.headers(sessionId),
      replayFrom ?? 0,
      this.handlers,
      replayFrom,
    );
    this.sessionStream.start();
  }

  /** Sends a request; resolves with its result when the answer arrives on a stream. */
  request(method: string, params: unknown, sessionId?: string): Promise<unknown> {
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.post({ jsonrpc: '2.0', id, method, params }, sessionId).catch((error: Error) => {
      this.pending.delete(id);
      this.settle(id, undefined, error);
    });
    return answered;
  }

  /** The id the next request will get (for a page that wants to remember which answer ends its turn). */
  peekNextId(): number {
    return this.nextId;
  }

  notify(method: string, params: unknown, sessionId?: string): Promise<void> {
    return this.post({ jsonrpc: '2.0', method, params }, sessionId);
  }

  /** Answers a request of the agent. */
  respond(id: number | string, result: unknown, sessionId?: string): Promise<void> {
    return this.post({ jsonrpc: '2.0', id, result }, sessionId);
  }

  respondError(id: number | string, code: number, message: string, sessionId?: string): Promise<void> {
    return this.post({ jsonrpc: '2.0', id, error: { code, message } }, sessionId);
  }

  /** Routes an answer to the request that waits for it; false when no request of this page waits for it. */
  settleAnswer(message: JsonRpcMessage): boolean {
    if (typeof message.id !== 'number' || !this.pending.has(message.id)) return false;
    const error =
      message.error === undefined
        ? undefined
        : new AcpCallError(message.error.message, message.error.code, message.error.data);
    this.settle(message.id, message.result, error);
    return true;
  }

  /** Ends the connection (the agent process is stopped by the server). */
  async close(): Promise<void> {
    this.connectionStream?.stop();
    this.sessionStream?.stop();
    if (this.connectionId !== undefined) {
      await fetch('/acp', { method: 'DELETE', headers: { 'acp-connection-id': this.connectionId } }).catch(
        () => undefined,
      );
    }
  }

  private settle(id: number, result: unknown, error: Error | undefined): void {
    const waiter = this.pending.get(id);
    if (waiter === undefined) return;
    this.pending.delete(id);
    if (error === undefined) waiter.resolve(result);
    else waiter.reject(error);
  }

  private openConnectionStream(replayFrom: number | undefined): void {
    this.connectionStream = new EventStream(
      'connection',
      () => this.headers(undefined),
      replayFrom ?? 0,
      this.handlers,
      replayFrom,
    );
    this.connectionStream.start();
  }

  private headers(sessionId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.connectionId !== undefined) headers['acp-connection-id'] = this.connectionId;
    if (sessionId !== undefined) headers['acp-session-id'] = sessionId;
    return headers;
  }

  private async post(message: object, sessionId: string | undefined): Promise<void> {
    const response = await fetch('/acp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.headers(sessionId) },
      body: JSON.stringify(message),
    });
    if (!response.ok) {
      const text = (await response.text()).trim();
      if (response.status === 404) this.handlers.onLinkState('ended', text);
      throw new AcpCallError(text || `HTTP ${response.status}`, -32603, { status: response.status });
    }
  }
}
