// The server's plain HTTP answers: the routes (`/healthz`, `/readyz`, the metadata document, `/metrics`), refusals
// of requests and of upgrades on their raw socket, and the answer to a request the HTTP parser refused.
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerPaths } from '../options/mount-path.js';
import type { Refusal } from '../seams/refusal.js';
import { RemoteProtocol } from '../shared/constants.js';
import type { RemoteLogger } from '../shared/logger.js';
import { requestPath } from './admission.js';
import type { MetricsEndpoint } from './metrics.js';

/** A complete answer with a body (`text/plain` unless said otherwise); HEAD gets the headers only. */
function respondText(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Answers a refused plain HTTP request. */
export function respondRefusal(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, {
    'Content-Type': refusal.contentType ?? 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(refusal.body),
    ...refusal.headers,
  });
  response.end(refusal.body);
}

/** Answers a refused WebSocket upgrade on its raw socket, then closes it. */
export function rejectUpgrade(socket: Duplex, refusal: Refusal): void {
  const body = refusal.body;
  const headers = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(refusal.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.on('error', () => {});
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

/** The raw answer to a request that did not arrive in time (408) or that the HTTP parser refused (400). */
export function clientErrorAnswer(timedOut: boolean): string {
  return timedOut
    ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 16\r\n\r\nrequest timeout\n'
    : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 12\r\n\r\nbad request\n';
}

/** What the routes read of their server. */
export interface HttpEndpointsOptions {
  readonly paths: ServerPaths;
  /** The metadata document as served (JSON and a newline). */
  readonly metadataBody: string;
  /** Present when metrics are on: `/metrics` renders it. */
  readonly metricsEndpoint: MetricsEndpoint | undefined;
  readonly logger: RemoteLogger;
  /** Whether the server drains or closes (`/readyz` answers 503 then). */
  readonly draining: () => boolean;
}

/** The routes of a server, answered after admission let the request through. */
export class HttpEndpoints {
  constructor(private readonly options: HttpEndpointsOptions) {}

  /** Answers an admitted request: its path is one of the routes. */
  serve(request: IncomingMessage, response: ServerResponse): void {
    const { paths, metricsEndpoint } = this.options;
    const path = requestPath(request);
    if (path === paths.health) {
      respondText(request, response, 200, 'ok\n');
    } else if (path === paths.readiness) {
      const draining = this.options.draining();
      respondText(request, response, draining ? 503 : 200, draining ? 'draining\n' : 'ok\n');
    } else if (path === RemoteProtocol.metricsPath && metricsEndpoint !== undefined) {
      void this.serveMetrics(metricsEndpoint, request, response);
    } else {
      respondText(request, response, 200, this.options.metadataBody, 'application/json');
    }
  }

  private async serveMetrics(
    endpoint: MetricsEndpoint,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    let body: string;
    try {
      body = await endpoint.render();
    } catch (error) {
      this.options.logger.error('metrics collection failed', { error: String(error) });
      respondText(request, response, 500, 'metrics collection failed\n');
      return;
    }
    respondText(request, response, 200, body, endpoint.contentType);
  }
}
