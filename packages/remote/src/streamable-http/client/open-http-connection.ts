// Opening a client's Streamable HTTP connection: the metadata (ours), a probe of the endpoint that tells an ACP
// Streamable HTTP endpoint from anything else with a clear error, and the port.
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ResolvedConnectOptions } from '../../options/validation.js';
import { FrameLog } from '../../relay/frame-log.js';
import type { ClientConnection } from '../../seams/client-connection-shape.js';
import { closeClientPort } from '../../seams/close-client-port.js';
import { connectionFailure, credentialRefusal, EndpointRefusal } from '../../seams/endpoint-refusal.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../../shared/errors.js';
import { redactUrls } from '../../shared/logger.js';
import { RouteKeyReader } from '../../wire/route-key-reader.js';
import { fetchServerMetadata, parseServerMetadata, type ServerMetadata } from '../../wire/server-metadata.js';
import { EVENT_STREAM_MEDIA_TYPE } from '../protocol.js';
import { HttpClientPort } from './http-client-port.js';
import { HttpExchange, readResponseBody } from './http-exchange.js';

/** At most this much of a refusal's body is read to explain it. */
const MAX_REFUSAL_BODY_BYTES = 8 * 1024;

/** What a probe of the endpoint found. */
type ProbeOutcome =
  | { readonly kind: 'endpoint' }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly body: string;
      readonly response: IncomingMessage;
    }
  | { readonly kind: 'failed'; readonly error: Error }
  | { readonly kind: 'timeout' };

/**
 * Asks the endpoint for an event stream without a connection: an ACP Streamable HTTP endpoint (ours, the TypeScript
 * and Python SDKs') answers 400 (no `Acp-Connection-Id`) and nothing else happens; anything else says what the URL
 * really is (a token refused, a wrong path, a WebSocket-only server) before the editor's `initialize` is sent.
 */
async function probe(exchange: HttpExchange, timeoutMs: number): Promise<ProbeOutcome> {
  let response: IncomingMessage;
  try {
    response = await exchange.send({
      method: 'GET',
      headers: { Accept: EVENT_STREAM_MEDIA_TYPE },
      signal: AbortSignal.timeout(Math.max(1, timeoutMs)),
    });
  } catch (error) {
    return (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError'
      ? { kind: 'timeout' }
      : { kind: 'failed', error: error as Error };
  }
  const status = response.statusCode ?? 0;
  let body = '';
  try {
    body = (await readResponseBody(response, MAX_REFUSAL_BODY_BYTES)).body.toString('utf8');
  } catch {
    // The explanation is optional.
  }
  // 400 is the answer of every endpoint we know to a GET without a connection; 200 would be a stream, or (an older
  // acpremote, Python's) a metadata document.
  if (status === 400) return { kind: 'endpoint' };
  return { kind: 'refused', status, body, response };
}

/** The printable start of a refusal body (servers answer a short text, or a JSON `{"error": ...}`). */
function printable(body: string): string {
  return body
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 200);
}

function refusalError(
  outcome: Extract<ProbeOutcome, { kind: 'refused' }>,
  resolved: ResolvedConnectOptions,
  shownUrl: string,
): AcpRemoteError {
  const { status } = outcome;
  const body = printable(outcome.body);
  const cause = new EndpointRefusal('streamable-http', status, resolved.sendsCredentials, body, shownUrl);
  const fail = (code: AcpRemoteErrorCode, message: string) => new AcpRemoteError(code, message, { cause });
  const webSocketUrl = (path: string) => {
    const url = new URL(path, resolved.url);
    url.protocol = resolved.url.protocol === 'https:' ? 'wss:' : 'ws:';
    return redactUrls(url.toString());
  };
  const credentials = credentialRefusal(cause);
  if (credentials !== undefined) return fail(AcpRemoteErrorCode.AuthenticationFailed, credentials);
  let metadata: ServerMetadata | undefined;
  try {
    metadata = status === 200 ? parseServerMetadata(JSON.parse(outcome.body)) : undefined;
  } catch {
    metadata = undefined;
  }
  if (metadata !== undefined) {
    return fail(
      AcpRemoteErrorCode.ConnectionFailed,
      `the server at ${shownUrl} does not speak ACP Streamable HTTP: it answered with its metadata document (an ` +
        `acpremote server that only speaks WebSocket); connect to ${webSocketUrl(metadata.websocket_path)} instead`,
    );
  }
  if (status === 404) {
    const origin = redactUrls(`${resolved.url.protocol}//${resolved.url.host}`);
    return fail(
      AcpRemoteErrorCode.ConnectionFailed,
      `the server at ${origin} has no ACP Streamable HTTP endpoint at ${resolved.url.pathname} (HTTP 404); the ` +
        `endpoint is usually /acp, e.g. ${origin}/acp`,
    );
  }
  if (status === 405) {
    const allow = outcome.response.headers.allow;
    return fail(
      AcpRemoteErrorCode.ConnectionFailed,
      `the server at ${shownUrl} does not speak ACP Streamable HTTP (HTTP 405${allow ? `, it allows ${allow}` : ''}): ` +
        `an older acpremote or a WebSocket-only server; connect with ${webSocketUrl(resolved.url.pathname)} instead`,
    );
  }
  if (status === 406 || status === 415) {
    return fail(
      AcpRemoteErrorCode.ConnectionFailed,
      `the server at ${shownUrl} refused ACP's Streamable HTTP requests (HTTP ${status}${body ? `: ${body}` : ''}): ` +
        'it is not an ACP Streamable HTTP endpoint, or a proxy in between rewrote the Accept or Content-Type header',
    );
  }
  const retry = outcome.response.headers['retry-after'];
  return fail(
    AcpRemoteErrorCode.ConnectionFailed,
    `the server at ${shownUrl} answered HTTP ${status}${body ? ` (${body})` : ''} where an ACP Streamable HTTP ` +
      `endpoint answers 400${status === 503 ? `; it takes no connections now, retry${retry ? ` in ${retry} s` : ' later'}` : ''}`,
  );
}

/**
 * Opens a Streamable HTTP client connection (`connectAcp`, `runMirror` with an `http(s)://` URL or `transport:
 * 'streamable-http'`): the metadata document (best effort: only our servers have one), a probe of the endpoint, then
 * the port; the connection itself opens with the editor's `initialize`. The metadata fetch and the probe share one
 * deadline (`openTimeoutMs`).
 *
 * @throws {@link AcpRemoteError} `AUTHENTICATION_FAILED` (401, 403) or `CONNECTION_FAILED` (anything but an ACP
 *   Streamable HTTP endpoint, a network error, the deadline), the `cause` an {@link EndpointRefusal} for a refusal.
 */
export async function openHttpClientConnection(
  resolved: ResolvedConnectOptions,
  peer: string,
): Promise<ClientConnection> {
  const shownUrl = redactUrls(resolved.url.toString());
  const deadline = performance.now() + resolved.openTimeoutMs;
  const timeLeft = () => Math.max(0, Math.floor(deadline - performance.now()));
  const timedOut = () =>
    new AcpRemoteError(
      AcpRemoteErrorCode.ConnectionFailed,
      `cannot connect to ${shownUrl}: no answer within openTimeoutMs (${resolved.openTimeoutMs} ms)`,
    );
  const exchange = new HttpExchange(resolved.url, {
    headers: resolved.headers,
    cookieStore: resolved.cookieStore,
    ca: resolved.ca,
  });
  const metadata = await fetchServerMetadata(resolved.url.toString(), {
    headers: resolved.headers,
    timeoutMs: timeLeft(),
    ca: resolved.ca,
  });
  if (timeLeft() === 0) {
    exchange.close();
    throw timedOut();
  }
  const outcome = await probe(exchange, timeLeft());
  if (outcome.kind !== 'endpoint') {
    exchange.close();
    if (outcome.kind === 'timeout') throw timedOut();
    if (outcome.kind === 'refused') throw refusalError(outcome, resolved, shownUrl);
    throw connectionFailure(shownUrl, outcome.error);
  }
  const routeKeys = new RouteKeyReader();
  const log = new FrameLog(resolved.logger);
  const port = new HttpClientPort({
    exchange,
    shownUrl,
    maxMessageBytes: resolved.maxMessageBytes,
    log,
    peer,
    pingIntervalMs: resolved.pingIntervalMs,
    stallTimeoutMs: resolved.stallTimeoutMs,
    onConnectionEvent: resolved.onConnectionEvent,
    routeKeysOf: (payload) => routeKeys.read(payload),
  });
  return {
    port,
    metadata,
    log,
    resumeSelected: false,
    get resumable() {
      return port.resumable;
    },
    close(reason) {
      closeClientPort(port, reason);
    },
  };
}
