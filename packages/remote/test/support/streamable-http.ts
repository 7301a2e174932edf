// Raw Streamable HTTP requests for the tests: POSTs with any headers and body, and SSE streams read event by event
// with a parser of their own (independent of the product's reader).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { type RawResponse, rawRequest, readRawResponse } from './helpers.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

/** POSTs `body` (an object is serialised) to `path` with `headers`. */
export function post(
  port: number,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/acp',
): Promise<RawResponse> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return rawRequest(port, path, { ...JSON_HEADERS, ...headers }, { method: 'POST', body: text });
}

/** POSTs an `initialize` without a connection (a new connection, or its refusal). */
export function postInitialize(port: number, headers: Record<string, string> = {}): Promise<RawResponse> {
  return post(
    port,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
    headers,
  );
}

/** `initialize` on a new connection: its `Acp-Connection-Id` and answer. */
export async function initialize(
  port: number,
  headers: Record<string, string> = {},
): Promise<{ connectionId: string; answer: Record<string, unknown>; response: RawResponse }> {
  const response = await postInitialize(port, headers);
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${response.body}`);
  return {
    connectionId: String(response.headers['acp-connection-id']),
    answer: JSON.parse(response.body) as Record<string, unknown>,
    response,
  };
}

/** One event of an SSE stream as the test reads it. */
export interface TestEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/** An open SSE stream: the events and comments read so far, and waits for more. */
export class TestEventStream {
  readonly events: TestEvent[] = [];
  readonly comments: string[] = [];
  readonly ended: Promise<void>;
  private buffer = '';
  private readonly waiters: Array<() => void> = [];

  constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
          else if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (data.length > 0) this.events.push({ id, data: data.join('\n') });
      }
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    this.ended = new Promise((resolve) => {
      response.once('end', resolve);
      response.once('close', resolve);
    });
    void this.ended.then(() => {
      for (const waiter of this.waiters.splice(0)) waiter();
    });
  }

  /** The parsed messages received so far. */
  get messages(): Array<Record<string, unknown>> {
    return this.events.map((event) => JSON.parse(event.data) as Record<string, unknown>);
  }

  /** Resolves with the first message matching `predicate` (waits for it). */
  async next(predicate: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.messages.find(predicate);
      if (found !== undefined) return found;
      if (this.response.readableEnded || this.response.destroyed) throw new Error('the stream ended first');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): void {
    this.response.destroy();
  }
}

/** Opens a stream: the connection stream, or with `session` a session's; the answer when it is not 200. */
export function openStream(
  port: number,
  connectionId: string,
  options: { session?: string; lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<TestEventStream | RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/acp',
      method: 'GET',
      headers: {
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        ...(options.session ? { 'Acp-Session-Id': options.session } : {}),
        ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}),
        ...options.headers,
      },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      if (response.statusCode === 200) {
        resolve(new TestEventStream(response));
        return;
      }
      resolve(readRawResponse(response));
    });
    outgoing.end();
  });
}

/** `openStream` when the test expects the stream to open. */
export async function openedStream(
  port: number,
  connectionId: string,
  options: Parameters<typeof openStream>[2] = {},
): Promise<TestEventStream> {
  const stream = await openStream(port, connectionId, options);
  if (!(stream instanceof TestEventStream))
    throw new Error(`stream refused: ${stream.status} ${stream.body}`);
  return stream;
}
