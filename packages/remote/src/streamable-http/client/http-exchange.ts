// One HTTP request of a Streamable HTTP client (POST, GET for SSE, DELETE): headers, cookies, TLS trust, body cap.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type CookieStore, mergeCookieHeader } from '../../shared/cookie-store.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../../shared/errors.js';

/** How long a socket may idle in the connection's pool (below the 5 s keep-alive timeout of our servers). */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;
/** Errors of a request written to a pooled socket the server had already closed or reset. */
const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

interface StaleSocketError extends Error {
  staleSocket?: boolean;
}

/** What every request of one client connection shares. */
export interface HttpExchangeOptions {
  /** The connection's own headers (`Authorization` included when a token is set). */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookieStore: CookieStore;
  readonly ca: string | Buffer | Array<string | Buffer> | undefined;
}

/** One request's method, extra headers and body. */
export interface HttpExchangeRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | string;
  /** Aborts the request (and its response). */
  readonly signal?: AbortSignal;
}

/**
 * Sends the requests of one client connection to one endpoint over one keep-alive agent (the connection's sockets:
 * POSTs reuse one, each SSE stream holds one), with the connection's headers and cookies on every request and every
 * response's `Set-Cookie` kept. Rejects with the network error (ECONNREFUSED, a TLS error, an abort).
 *
 * @example
 * ```ts
 * const exchange = new HttpExchange(new URL('http://127.0.0.1:8080/acp'), { headers: {}, cookieStore, ca: undefined });
 * const response = await exchange.send({ method: 'DELETE', headers: { 'Acp-Connection-Id': id } });
 * ```
 */
export class HttpExchange {
  private readonly agent: HttpAgent;

  constructor(
    readonly url: URL,
    private readonly options: HttpExchangeOptions,
  ) {
    // Idle sockets are closed before a server's usual keep-alive timeout (ours: 5 s), so a request rarely meets one
    // the server is closing; `send` covers the rest.
    const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS };
    this.agent =
      url.protocol === 'https:'
        ? new HttpsAgent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) })
        : new HttpAgent(agentOptions);
  }

  /**
   * Sends one request. A request that fails on a reused keep-alive socket before any answer (the socket was closed
   * or reset while idle in the pool: nothing of it reached the server) is sent once more on a new socket.
   */
  async send(request: HttpExchangeRequest): Promise<IncomingMessage> {
    try {
      return await this.sendOnce(request);
    } catch (error) {
      if (!(error as StaleSocketError).staleSocket) throw error;
      return this.sendOnce(request);
    }
  }

  private sendOnce(request: HttpExchangeRequest): Promise<IncomingMessage> {
    const headers: Record<string, string> = { ...this.options.headers, ...request.headers };
    const cookieName = Object.keys(headers).find((name) => name.toLowerCase() === 'cookie');
    const cookie = mergeCookieHeader(this.options.cookieStore, cookieName ? headers[cookieName] : undefined);
    if (cookieName !== undefined) delete headers[cookieName];
    if (cookie !== undefined) headers.Cookie = cookie;
    if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(this.url, {
        method: request.method,
        headers,
        agent: this.agent,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      outgoing.once('response', (response) => {
        const setCookie = response.headers['set-cookie'];
        if (setCookie !== undefined) this.options.cookieStore.store(setCookie);
        resolve(response);
      });
      outgoing.once('error', (error: NodeJS.ErrnoException) => {
        if (outgoing.reusedSocket && STALE_SOCKET_ERRORS.has(error.code ?? ''))
          (error as StaleSocketError).staleSocket = true;
        reject(error);
      });
      outgoing.end(request.body);
    });
  }

  /** Closes every socket of the connection (its SSE streams included). */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * The body of a response, at most `maxBytes` of it: a longer body is cut there (`truncated`) and the rest is not
 * read (the response is destroyed). Rejects when the response fails before its end.
 */
export function readResponseBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      const room = maxBytes - bytes;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        bytes = maxBytes;
        response.off('data', onData);
        response.destroy();
        resolve({ body: Buffer.concat(chunks, bytes), truncated: true });
        return;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    };
    response.on('data', onData);
    response.once('end', () => resolve({ body: Buffer.concat(chunks, bytes), truncated: false }));
    response.once('error', reject);
    response.once('aborted', () =>
      reject(new AcpRemoteError(AcpRemoteErrorCode.ConnectionClosed, 'the response was cut off')),
    );
  });
}

/** Error bodies are explanations, not messages: at most this much of one is read (as the TS SDK client). */
const MAX_ERROR_BODY_BYTES = 8 * 1024;

/** A refused request, in words: the status and the server's explanation. */
export async function refusalText(
  shownUrl: string,
  what: string,
  response: IncomingMessage,
): Promise<string> {
  const body = await responseText(response);
  return `the server at ${shownUrl} refused ${what} with HTTP ${response.statusCode ?? 0}${body}`;
}

/** `: <the start of the body>` in printable ASCII, or '' (the explanation is optional). */
export async function responseText(response: IncomingMessage): Promise<string> {
  try {
    const text = (await readResponseBody(response, MAX_ERROR_BODY_BYTES)).body
      .toString('utf8')
      .replace(/[^\x20-\x7e]+/g, ' ')
      .trim()
      .slice(0, 200);
    return text === '' ? '' : `: ${text}`;
  } catch {
    return '';
  }
}
