import { WebSocket } from 'ws';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';
import { hardPayloadCap } from './limits.js';
import { fetchServerMetadata, type ServerMetadata } from './metadata.js';
import type { ResolvedConnectOptions } from './options-validation.js';
import { isLoopbackHost } from './security.js';

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
export async function openClientSocket(resolved: ResolvedConnectOptions): Promise<OpenedSocket> {
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
