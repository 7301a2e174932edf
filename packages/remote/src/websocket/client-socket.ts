// Opening a client WebSocket: the metadata fetch, the upgrade within one deadline, and why a server refused it.
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import type { ResolvedConnectOptions } from '../options/validation.js';
import { connectionFailure, credentialRefusal, EndpointRefusal } from '../seams/endpoint-refusal.js';
import { RemoteDefaults } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { hardPayloadCap } from '../shared/fixed-limits.js';
import { isLoopbackHost } from '../shared/http-headers.js';
import { type RemoteLogger, redactUrls } from '../shared/logger.js';
import { CONNECTION_ID_HEADER } from '../streamable-http/protocol.js';
import { fetchServerMetadata, type ServerMetadata } from '../wire/server-metadata.js';
import { RESUME_REFUSED_HEADER, RESUME_SUBPROTOCOL } from './resume/resume-protocol.js';

/** Whether a `ws://` or `http://` URL points at a non-loopback host (traffic and token travel in clear text). */
function isInsecureRemoteUrl(url: URL): boolean {
  return (url.protocol === 'ws:' || url.protocol === 'http:') && !isLoopbackHost(url.hostname);
}

/** Warns (once per connection) that a plain `ws://` / `http://` URL to another host carries everything in clear. */
export function warnIfInsecure(url: URL, logger: RemoteLogger): void {
  if (!isInsecureRemoteUrl(url)) return;
  const secure = url.protocol === 'ws:' ? 'wss://' : 'https://';
  logger.warn(
    `${url.protocol}// to a non-loopback host: messages and the token travel unencrypted; prefer ${secure}`,
    {
      host: url.hostname,
    },
  );
}

/** An open client socket plus the server metadata fetched before it. */
export interface OpenedSocket {
  socket: WebSocket;
  metadata: ServerMetadata | undefined;
  /** Whether the server selected the resume subprotocol (it was offered: `resolved.resume`). */
  resumeSelected: boolean;
  /** The `Acp-Connection-Id` the 101 named (the RFD WebSocket), what a durable-resume `stream/resume` names. */
  connectionId: string | undefined;
}

const MAX_REFUSAL_BODY_BYTES = 1024;

/** `Acp-Connection-Id` as Node hands response headers over (lower case). */
const CONNECTION_ID_HEADER_LOWER = CONNECTION_ID_HEADER.toLowerCase();

/** The subprotocol header of a request or response (`ws` sends and reads it under this name). */
const PROTOCOL_HEADER = 'sec-websocket-protocol';

/** What {@link openWebSocket} sends beyond the connection options. */
export interface OpenRequest {
  /** Offer the resume subprotocol. */
  readonly offerResume: boolean;
  /** Extra headers (a resume's token and count). */
  readonly headers?: Record<string, string>;
}

export type OpenOutcome =
  /** `connectionId`: the 101's `Acp-Connection-Id` (an RFD WebSocket names its connection there). */
  | { kind: 'open'; protocol: string; connectionId: string | undefined }
  /** `resumeRefusal`: the `Acpkit-Resume-Refused` header of a refused resume. */
  | { kind: 'refused'; status: number; body: string; resumeRefusal?: string }
  | { kind: 'failed'; error: Error }
  | { kind: 'timeout' };

/** The printable start of a refusal body (servers answer a short text such as `forbidden origin`). */
function refusalText(body: Buffer): string {
  return body
    .toString('latin1')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 100);
}

/**
 * Opens one WebSocket within `timeoutMs`. The resume subprotocol is offered as a plain header and the answer read
 * and removed from the response before `ws` checks it: `ws` fails a connection whose server selects none of the
 * offered subprotocols, and the servers without resume (Python `acpremote`, an older one) select none. Any other
 * subprotocol in the answer fails the connection, as `ws` would.
 */
export function openWebSocket(
  url: string,
  resolved: ResolvedConnectOptions,
  timeoutMs: number,
  request: OpenRequest,
): { socket: WebSocket; outcome: Promise<OpenOutcome> } {
  const socket = new WebSocket(url, {
    headers: {
      ...resolved.headers,
      ...request.headers,
      ...(request.offerResume ? { [PROTOCOL_HEADER]: RESUME_SUBPROTOCOL } : {}),
    },
    maxPayload: hardPayloadCap(resolved.maxMessageBytes),
    perMessageDeflate: false,
    followRedirects: false,
    ...(resolved.ca ? { ca: resolved.ca } : {}),
  });
  const outcome = new Promise<OpenOutcome>((resolve) => {
    let settled = false;
    const settle = (result: OpenOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('open', onOpen);
      socket.off('upgrade', onUpgrade);
      socket.off('unexpected-response', onUnexpected);
      if (result.kind !== 'open') {
        // Whatever ws reports after this (the terminate below) is expected.
        socket.on('error', () => {});
        socket.terminate();
      }
      resolve(result);
    };
    const timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
    let protocol = '';
    let connectionId: string | undefined;
    const onUpgrade = (response: { headers: Record<string, string | string[] | undefined> }) => {
      const named = response.headers[CONNECTION_ID_HEADER_LOWER];
      if (typeof named === 'string' && named !== '') connectionId = named;
      const selected = response.headers[PROTOCOL_HEADER];
      delete response.headers[PROTOCOL_HEADER];
      if (selected === undefined) return;
      if (request.offerResume && selected === RESUME_SUBPROTOCOL) {
        protocol = selected;
        return;
      }
      settle({
        kind: 'failed',
        error: new AcpRemoteError(
          AcpRemoteErrorCode.ConnectionFailed,
          `the server selected a subprotocol that was not offered: ${String(selected)}`,
        ),
      });
    };
    const onOpen = () => {
      // Frames may arrive with the handshake (a resume server's `welcome` does) and would be emitted before
      // whoever awaits this has listened: reading waits until the port that takes the socket starts it.
      socket.pause();
      settle({ kind: 'open', protocol, connectionId });
    };
    const onUnexpected = (
      _request: unknown,
      response: NodeJS.ReadableStream & { statusCode?: number; headers?: Record<string, unknown> },
    ) => {
      const status = response.statusCode ?? 0;
      const resumeRefusal = response.headers?.[RESUME_REFUSED_HEADER];
      const chunks: Buffer[] = [];
      let bytes = 0;
      const done = () =>
        settle({
          kind: 'refused',
          status,
          body: refusalText(Buffer.concat(chunks)),
          ...(typeof resumeRefusal === 'string' ? { resumeRefusal } : {}),
        });
      response.on('data', (chunk: Buffer) => {
        if (bytes < MAX_REFUSAL_BODY_BYTES) chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= MAX_REFUSAL_BODY_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    };
    socket.once('open', onOpen);
    socket.once('upgrade', onUpgrade);
    socket.once('error', (error: Error) => settle({ kind: 'failed', error }));
    socket.on('unexpected-response', onUnexpected);
  });
  return { socket, outcome };
}

/**
 * Names the server's real WebSocket endpoint after a 404, from its metadata: the metadata this URL points at, then
 * the mounts above the path, then the default mount. Undefined when none answers within the time left (e.g. the
 * metadata route needs a token we lack).
 */
async function findWebSocketEndpoint(
  url: URL,
  metadata: ServerMetadata | undefined,
  resolved: ResolvedConnectOptions,
  timeLeft: () => number,
): Promise<string | undefined> {
  const at = (path: string) => new URL(path, url).toString();
  if (metadata?.websocket_path && metadata.websocket_path !== url.pathname)
    return at(metadata.websocket_path);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const mounts = new Set<string>();
  for (let depth = segments.length - 1; depth >= 1 && mounts.size < 2; depth -= 1) {
    mounts.add(`/${segments.slice(0, depth).join('/')}`);
  }
  mounts.add(RemoteDefaults.mountPath);
  for (const mount of mounts) {
    if (timeLeft() <= 0) return undefined;
    const found = await fetchServerMetadata(at(`${mount}/ws`), {
      headers: resolved.headers,
      timeoutMs: timeLeft(),
      ca: resolved.ca,
    });
    if (found?.websocket_path && found.websocket_path !== url.pathname) return at(found.websocket_path);
  }
  return undefined;
}

async function refusalError(
  refusal: { status: number; body: string },
  resolved: ResolvedConnectOptions,
  metadata: ServerMetadata | undefined,
  timeLeft: () => number,
): Promise<AcpRemoteError> {
  const shownUrl = redactUrls(resolved.url.toString());
  const { status, body } = refusal;
  const cause = new EndpointRefusal('websocket', status, resolved.sendsCredentials, body, shownUrl);
  const fail = (code: AcpRemoteErrorCode, message: string) => new AcpRemoteError(code, message, { cause });
  const credentials = credentialRefusal(cause);
  if (credentials !== undefined) return fail(AcpRemoteErrorCode.AuthenticationFailed, credentials);
  if (status === 404) {
    const endpoint = await findWebSocketEndpoint(resolved.url, metadata, resolved, timeLeft);
    const origin = redactUrls(`${resolved.url.protocol}//${resolved.url.host}`);
    return fail(
      AcpRemoteErrorCode.ConnectionFailed,
      `the server at ${origin} has no ACP WebSocket endpoint at ${resolved.url.pathname} (HTTP 404); ` +
        (endpoint
          ? `its endpoint is ${redactUrls(endpoint)}`
          : `the endpoint is usually ${RemoteDefaults.mountPath}/ws, e.g. ${origin}${RemoteDefaults.mountPath}/ws`),
    );
  }
  return fail(
    AcpRemoteErrorCode.ConnectionFailed,
    `the server at ${shownUrl} refused the WebSocket upgrade with HTTP ${status}${body ? ` (${body})` : ''}`,
  );
}

/**
 * Fetches metadata (best effort) and opens the WebSocket with headers and payload cap, both within one deadline
 * (`openTimeoutMs`). A refusal says what happened and what to do: a missing or a wrong token (401), a forbidden
 * host or origin (403), a wrong path (404: the server's real endpoint, read from its metadata when reachable).
 *
 * @throws {@link AcpRemoteError} `AUTHENTICATION_FAILED` on 401/403, `CONNECTION_FAILED` otherwise; for a refused
 *   upgrade the `cause` is an {@link EndpointRefusal}.
 */
export async function openClientSocket(resolved: ResolvedConnectOptions): Promise<OpenedSocket> {
  const url = resolved.url.toString();
  const shownUrl = redactUrls(url);
  const deadline = performance.now() + resolved.openTimeoutMs;
  const timeLeft = () => Math.max(0, Math.floor(deadline - performance.now()));
  const timedOut = () =>
    new AcpRemoteError(
      AcpRemoteErrorCode.ConnectionFailed,
      `cannot connect to ${shownUrl}: no connection within openTimeoutMs (${resolved.openTimeoutMs} ms)`,
    );
  const metadata = await fetchServerMetadata(url, {
    headers: resolved.headers,
    timeoutMs: timeLeft(),
    ca: resolved.ca,
  });
  if (timeLeft() === 0) throw timedOut();
  // The durable-resume draft alone (resumeWire): acpkit.resume.v1 is not offered, so the server serves the draft.
  const offerResume = resolved.resume && resolved.resumeWire !== 'durable-resume';
  const { socket, outcome } = openWebSocket(url, resolved, timeLeft(), { offerResume });
  const result = await outcome;
  switch (result.kind) {
    case 'open':
      return {
        socket,
        metadata,
        resumeSelected: result.protocol === RESUME_SUBPROTOCOL,
        connectionId: result.connectionId,
      };
    case 'timeout':
      throw timedOut();
    case 'failed':
      throw connectionFailure(shownUrl, result.error);
    case 'refused':
      throw await refusalError(result, resolved, metadata, timeLeft);
  }
}
