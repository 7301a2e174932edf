import { WebSocket } from 'ws';
import { DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_OPEN_TIMEOUT_MS, DEFAULT_PING_INTERVAL_MS } from './constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
import { fetchServerMetadata, type ServerMetadata } from './metadata.js';
import type { HostOwnership, TransportOptions } from './options.js';
import { isLoopbackHost } from './security.js';
import { hardPayloadCap } from './server.js';

/** Transport options after validation and defaults. */
export interface ResolvedTransportOptions {
  url: URL;
  useUnstableProtocol: boolean;
  maxMessageBytes: number;
  pingIntervalMs: number;
  openTimeoutMs: number;
  hostOwnership: HostOwnership;
  headers: Record<string, string>;
  emitLatencyMeta: boolean;
  ca: string | Buffer | Array<string | Buffer> | undefined;
}

function invalid(message: string): AcpRemoteError {
  return new AcpRemoteError(AcpRemoteErrorCode.InvalidOption, message);
}

function nonNegativeInteger(
  value: number | undefined,
  name: string,
  fallback: number,
  allowZero: boolean,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0 || (!allowZero && value === 0)) {
    throw invalid(
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Validates client options and applies defaults.
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION`.
 */
export function resolveTransportOptions(url: string, options: TransportOptions): ResolvedTransportOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new AcpRemoteError(
      AcpRemoteErrorCode.InvalidOption,
      `not a WebSocket URL: ${JSON.stringify(url)}`,
      {
        cause: error,
      },
    );
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw invalid(`URL must use ws:// or wss://, got ${JSON.stringify(parsed.protocol)}`);
  }
  const hostOwnership = options.hostOwnership ?? 'remote';
  if (hostOwnership !== 'remote' && hostOwnership !== 'client-passthrough') {
    throw invalid(
      `hostOwnership must be "remote" or "client-passthrough", got ${JSON.stringify(hostOwnership)}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (name.toLowerCase() === 'authorization' && options.bearerToken !== undefined) continue;
    headers[name] = value;
  }
  if (options.bearerToken !== undefined) {
    const token = typeof options.bearerToken === 'string' ? options.bearerToken.trim() : '';
    if (token === '') throw invalid('bearerToken must not be blank');
    if (/\s/.test(token)) throw invalid('bearerToken must not contain whitespace');
    headers.Authorization = `Bearer ${token}`;
  }
  return {
    url: parsed,
    useUnstableProtocol: options.useUnstableProtocol === true,
    maxMessageBytes: nonNegativeInteger(
      options.maxMessageBytes,
      'maxMessageBytes',
      DEFAULT_MAX_MESSAGE_BYTES,
      false,
    ),
    pingIntervalMs: nonNegativeInteger(
      options.pingIntervalMs,
      'pingIntervalMs',
      DEFAULT_PING_INTERVAL_MS,
      true,
    ),
    openTimeoutMs: nonNegativeInteger(options.openTimeoutMs, 'openTimeoutMs', DEFAULT_OPEN_TIMEOUT_MS, false),
    hostOwnership,
    headers,
    emitLatencyMeta: options.emitLatencyMeta === true,
    ca: options.ca,
  };
}

/** Whether a `ws://` URL points at a non-loopback host (traffic and token travel in clear text). */
export function isInsecureRemoteUrl(url: URL): boolean {
  return url.protocol === 'ws:' && !isLoopbackHost(url.hostname);
}

/** An open client socket plus the server metadata fetched before it. */
export interface OpenedSocket {
  socket: WebSocket;
  metadata: ServerMetadata | undefined;
}

/**
 * Fetches metadata (best effort) and opens the WebSocket with headers, payload cap and open timeout.
 *
 * @throws {@link AcpRemoteError} `AUTHENTICATION_FAILED` on 401/403, `CONNECTION_FAILED` otherwise.
 */
export async function openClientSocket(resolved: ResolvedTransportOptions): Promise<OpenedSocket> {
  const url = resolved.url.toString();
  const metadata = await fetchServerMetadata(url, {
    headers: resolved.headers,
    timeoutMs: resolved.openTimeoutMs,
    ca: resolved.ca,
  });
  const socket = new WebSocket(url, {
    headers: resolved.headers,
    maxPayload: hardPayloadCap(resolved.maxMessageBytes),
    handshakeTimeout: resolved.openTimeoutMs,
    perMessageDeflate: false,
    followRedirects: false,
    ...(resolved.ca ? { ca: resolved.ca } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      socket.off('open', onOpen);
      socket.off('error', onError);
      socket.off('unexpected-response', onUnexpected);
    };
    const onOpen = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      socket.on('error', () => {});
      reject(
        new AcpRemoteError(
          AcpRemoteErrorCode.ConnectionFailed,
          `cannot connect to ${url}: ${error.message}`,
          {
            cause: error,
          },
        ),
      );
    };
    const onUnexpected = (_request: unknown, response: { statusCode?: number; resume(): void }) => {
      cleanup();
      socket.on('error', () => {});
      response.resume();
      socket.terminate();
      const status = response.statusCode ?? 0;
      reject(
        new AcpRemoteError(
          status === 401 || status === 403
            ? AcpRemoteErrorCode.AuthenticationFailed
            : AcpRemoteErrorCode.ConnectionFailed,
          `the server at ${url} refused the WebSocket upgrade with HTTP ${status}`,
        ),
      );
    };
    socket.on('open', onOpen);
    socket.on('error', onError);
    socket.on('unexpected-response', onUnexpected);
  });
  return { socket, metadata };
}
