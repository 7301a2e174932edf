// connectAcp: a client connection to a remote ACP server as an SDK Stream.
import type { Stream } from '@agentclientprotocol/sdk';
import { invalidOption } from '../options/option-error.js';
import type { ConnectOptions } from '../options/options.js';
import { resolveConnectOptions } from '../options/validation.js';
import { messageStream } from '../relay/message-stream.js';
import { warnIfInsecure } from '../websocket/client-socket.js';
import type { ServerMetadata } from '../wire/server-metadata.js';
import { CarriedPort } from './carried-port.js';
import { openClientConnection } from './client-connection.js';

const MIRROR_ONLY_OPTIONS = ['useUnstableProtocol', 'hostOwnership', 'emitLatencyMeta'] as const;

/** The mirror's own options mean nothing to a raw stream: passing one to `connectAcp` is a mistake worth naming. */
function rejectMirrorOnlyOptions(options: object): void {
  const given = MIRROR_ONLY_OPTIONS.find((name) => name in options);
  if (given === undefined) return;
  throw invalidOption(
    given,
    'no value: it applies to runMirror only (remove it from the connectAcp call)',
    (options as Record<string, unknown>)[given],
  );
}

/**
 * A raw ACP message stream to a remote endpoint, returned by {@link connectAcp}.
 *
 * @example
 * ```ts
 * const remote: RemoteConnection = await connectAcp('ws://127.0.0.1:8080/acp/ws');
 * const { code, reason } = await remote.closed;
 * ```
 */
export interface RemoteConnection {
  /** SDK `Stream` of JSON-RPC objects: pass it to `client(...).connect(stream)` or pipe it. */
  readonly stream: Stream;
  /** Server metadata fetched before connecting, when the server offered it. */
  readonly metadata: ServerMetadata | undefined;
  /**
   * Whether the connection survives a drop: the server agreed to resume and welcomed this client (true a moment
   * after the open, once its first frame arrived). Drops and resumes are told to `onConnectionEvent`.
   */
  readonly resumable: boolean;
  /**
   * Resolves with the close code and reason once the connection has ended: closed by either side, or dropped and
   * not resumed (the reason then starts with `resume failed`). A drop that is resumed does not settle it.
   */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Closes the connection (1000) and waits for it. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a connection (Streamable HTTP or WebSocket) to a remote ACP endpoint and returns it as an SDK `Stream` of JSON-RPC objects (for
 * programmatic clients). No typed parsing happens here; the stream carries the messages as sent. When the server
 * supports resume (ours does by default), the stream survives a network drop: the client reconnects within the
 * server's resume window and both sides replay what the other missed, so every message arrives exactly once and in
 * order; pending requests simply take longer. `onConnectionEvent` tells when that happens, and `closed` settles only
 * when the connection is over.
 *
 * @param url - `http(s)://` (Streamable HTTP, e.g. `http://127.0.0.1:8080/acp`) or `ws(s)://` (WebSocket, e.g.
 *   `ws://127.0.0.1:8080/acp/ws`) URL.
 * @param options - Connection options (token, headers, CA, limits, one open deadline, logger).
 * @throws {@link AcpRemoteError} `INVALID_OPTION`, `AUTHENTICATION_FAILED` or `CONNECTION_FAILED`.
 * @example
 * ```ts
 * import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
 * const remote = await connectAcp('ws://127.0.0.1:8080/acp/ws', {
 *   bearerToken: process.env.ACP_TOKEN,
 *   onConnectionEvent: (event) => console.error(`acp connection ${event.type}`),
 * });
 * const connection = client({ name: 'my-client' }).connect(remote.stream);
 * await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
 * await remote.close();
 * ```
 */
export async function connectAcp(url: string, options: ConnectOptions = {}): Promise<RemoteConnection> {
  rejectMirrorOnlyOptions(options);
  const resolved = resolveConnectOptions(url, options);
  const logger = resolved.logger;
  warnIfInsecure(resolved.url, logger);
  const connection = await openClientConnection(resolved, 'peer');
  const { metadata } = connection;
  const port = new CarriedPort(connection, resolved, () => openClientConnection(resolved, 'peer'));
  const closed = port.closed.then(({ code, reason }) => ({ code, reason }));
  const stream = messageStream(port, connection.log, {
    maxPendingRequests: resolved.maxPendingRequests,
  });
  return {
    stream,
    metadata,
    get resumable() {
      return port.connection.resumable;
    },
    closed,
    async close() {
      // A close asked for while reconnecting would wait for the resume (or the carry), which nobody wants now.
      port.closeConnection(undefined, 'abandon');
      await closed;
    },
  };
}
