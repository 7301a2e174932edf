// Forwards the page's ACP requests (Streamable HTTP: POST, the SSE GETs, DELETE) to the agent's relay on loopback,
// adding the relay's bearer token, which never reaches the browser.
import {
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';

const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-length',
  'accept',
  'acp-connection-id',
  'acp-session-id',
  'last-event-id',
] as const;
const FORWARDED_RESPONSE_HEADERS = [
  'content-type',
  'cache-control',
  'acp-connection-id',
  'acp-session-id',
  'acpkit-resume-window-ms',
  'acpkit-resume-refused',
  'retry-after',
  'allow',
] as const;

/** The relay the page's `/acp` requests go to: its Streamable HTTP endpoint and its (server-side) bearer token. */
export interface AgentEndpoint {
  readonly endpoint: string;
  readonly bearerToken: string;
}

/** Relays one request to the agent's endpoint and its answer back, streaming both ways (SSE included). */
export function forwardToAgent(
  target: AgentEndpoint,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const url = new URL(target.endpoint);
  const headers: OutgoingHttpHeaders = { authorization: `Bearer ${target.bearerToken}`, host: url.host };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const upstream = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: request.method,
    headers,
  });
  upstream.on('response', (answer) => {
    const answerHeaders: OutgoingHttpHeaders = { 'x-accel-buffering': 'no' };
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = answer.headers[name];
      if (typeof value === 'string') answerHeaders[name] = value;
    }
    response.writeHead(answer.statusCode ?? 502, answerHeaders);
    // An event stream is written as it comes: the page renders each event when it arrives.
    if (answer.headers['content-type']?.startsWith('text/event-stream')) response.flushHeaders();
    answer.pipe(response);
  });
  upstream.on('error', (error) => {
    if (!response.headersSent) {
      response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`The agent's relay did not answer: ${error.message}\n`);
    } else {
      response.destroy();
    }
  });
  // The browser went away (a reload, a dropped network): the relay sees its reader leave and keeps the events.
  response.on('close', () => upstream.destroy());
  request.pipe(upstream);
}
