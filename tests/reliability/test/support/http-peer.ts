// A raw Streamable HTTP peer for the hostile-client tests: requests written by hand on TCP sockets (so a test can
// stop reading, send a body one byte at a time, or never finish it), and the few exchanges a legitimate client makes.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A complete answer: status, headers (lower-case names) and body. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * One request with node:http (a fresh socket, `Connection: close`), resolved with the whole answer; rejects on a
 * reset or after `timeoutMs`.
 *
 * @example
 * ```ts
 * const health = await httpExchange(`http://127.0.0.1:${port}/healthz`, { method: 'GET' });
 * ```
 */
export function httpExchange(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: options.method,
        agent: false,
        headers: { Connection: 'close', ...options.headers },
        timeout: options.timeoutMs ?? 10_000,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          body += text;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** POSTs `initialize` to `endpoint` and returns the new connection's `Acp-Connection-Id`. */
export async function initializeConnection(endpoint: string): Promise<string> {
  const answer = await httpExchange(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  });
  if (answer.status !== 200) throw new Error(`initialize: ${answer.status} ${answer.body}`);
  return String(answer.headers['acp-connection-id']);
}

/** POSTs one JSON-RPC message on a connection; resolves with the status (202 when taken). */
export async function postMessage(endpoint: string, connectionId: string, message: object): Promise<number> {
  const answer = await httpExchange(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Acp-Connection-Id': connectionId },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return answer.status;
}

/**
 * Opens a raw TCP socket to `endpoint`'s host and writes `head` (request line and headers, no blank line: one is
 * added) and `body`; the socket is returned as it is (flowing unless the caller pauses it), errors swallowed.
 */
export async function rawRequest(
  endpoint: string,
  head: string,
  body = '',
  localAddress?: string,
): Promise<Socket> {
  const url = new URL(endpoint);
  const socket = connect({
    port: Number(url.port),
    host: url.hostname,
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(`${head}\r\nHost: ${url.host}\r\n\r\n${body}`);
  return socket;
}

/**
 * A GET of the connection stream on a raw socket that never reads (paused at once): a reader whose kernel buffers
 * fill and stay full.
 */
export async function neverReadingStream(
  endpoint: string,
  connectionId: string,
  lastEventId?: number,
): Promise<Socket> {
  const path = new URL(endpoint).pathname;
  const socket = await rawRequest(
    endpoint,
    [
      `GET ${path} HTTP/1.1`,
      'Accept: text/event-stream',
      `Acp-Connection-Id: ${connectionId}`,
      ...(lastEventId === undefined ? [] : [`Last-Event-ID: ${lastEventId}`]),
    ].join('\r\n'),
  );
  socket.pause();
  return socket;
}

/**
 * A GET of the connection stream that reads everything, counting bytes and keeping a short tail, so a test can
 * wait for an event by its text.
 */
export async function readingStream(endpoint: string, connectionId: string) {
  const path = new URL(endpoint).pathname;
  const socket = await rawRequest(
    endpoint,
    [`GET ${path} HTTP/1.1`, 'Accept: text/event-stream', `Acp-Connection-Id: ${connectionId}`].join('\r\n'),
  );
  let bytes = 0;
  let tail = '';
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => {
    bytes += text.length;
    tail = (tail + text).slice(-4096);
  });
  return {
    socket,
    bytes: () => bytes,
    tail: () => tail,
  };
}
