import { request } from 'node:http';
import WebSocket from 'ws';

/** What an HTTP request or a refused WebSocket upgrade answered. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A plain HTTP GET against a server under test (headers passed verbatim, Host included). */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const openSockets = new Set<WebSocket>();

/**
 * Opens a raw WebSocket. Resolves with the open socket, or with the HTTP answer when the server refuses the
 * upgrade (401, 403, 404, 503, ...).
 */
export function openWebSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ socket: WebSocket } | { refused: HttpAnswer }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    openSockets.add(socket);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        socket.terminate();
        resolve({ refused: { status: response.statusCode ?? 0, headers: response.headers, body } });
      });
    });
    socket.once('error', (error) => {
      if (socket.readyState !== WebSocket.CLOSED) reject(error);
    });
  });
}

/** Opens a WebSocket that must be accepted. */
export async function openAcceptedWebSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<WebSocket> {
  const outcome = await openWebSocket(url, headers);
  if ('refused' in outcome) {
    throw new Error(`upgrade refused with ${outcome.refused.status}: ${outcome.refused.body}`);
  }
  return outcome.socket;
}

/** Resolves with the close code and reason of a socket. */
export function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.reject(new Error('socket already closed'));
  return new Promise((resolve) => {
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

/** Terminates every socket opened through this module (for afterEach). */
export function closeAllWebSockets(): void {
  for (const socket of openSockets) socket.terminate();
  openSockets.clear();
}
