// serveAcp: serves an in-process ACP agent over Streamable HTTP and WebSocket, one agent connection per client.
import { setTimeout as delay } from 'node:timers/promises';
import type { Stream } from '@agentclientprotocol/sdk';
import type { ServeOptions } from '../options/options.js';
import { resolveServeOptions } from '../options/validation.js';
import type { FramePort } from '../relay/frame-port.js';
import { messageStream } from '../relay/message-stream.js';
import type { ConnectionContext, ConnectionSession } from '../seams/connection.js';
import { CloseCode } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { INITIALIZE_METHOD } from '../wire/initialize.js';
import { RemoteServerHost } from './remote-server.js';
import type { RemoteServer } from './remote-server-api.js';

/**
 * What `serveAcp` needs from an agent app: the SDK's `AgentApp` (stable or `/unstable`) satisfies it.
 *
 * @example
 * ```ts
 * const app: ConnectableAgentApp = agent({ name: 'demo' }).onRequest(methods.agent.initialize, () => ({ protocolVersion: 1 }));
 * ```
 */
export interface ConnectableAgentApp {
  connect(stream: Stream): { readonly closed: Promise<void>; close(error?: unknown): void };
}

/**
 * An agent app, or a factory called once per connection (preferred: nothing is shared by accident).
 *
 * @example
 * ```ts
 * const source: AgentAppSource = () => createDeployAgent();
 * ```
 */
export type AgentAppSource = ConnectableAgentApp | (() => ConnectableAgentApp | Promise<ConnectableAgentApp>);

const AGENT_CLOSE_GRACE_MS = 2_000;
/** How long a shutdown waits for the client to answer its close frame before the socket is destroyed. */
const CLOSE_ANSWER_WAIT_MS = 1_000;
/** Waits without keeping the process alive. */
const unrefDelay = (milliseconds: number) => delay(milliseconds, undefined, { ref: false });

function serveAgentConnection(
  port: FramePort,
  source: AgentAppSource,
  context: ConnectionContext,
): ConnectionSession {
  const { logger, connectionId } = context;
  let connection: { readonly closed: Promise<void>; close(error?: unknown): void } | undefined;
  let shuttingDown = false;
  // Wrap the port before awaiting the factory: frames that arrive meanwhile queue in the stream (and pause the
  // socket at its high-water mark) instead of being emitted with no listener and lost.
  const stream = messageStream(port, context.log, {
    maxPendingRequests: context.maxPendingRequests,
    // A session is kept for a resume only once the agent answered `initialize`.
    answered: (method) => {
      if (method === INITIALIZE_METHOD) port.markEstablished();
    },
  });
  const started = (async () => {
    const app = typeof source === 'function' ? await source() : source;
    if (!app || typeof app.connect !== 'function') {
      throw new AcpRemoteError(
        AcpRemoteErrorCode.InvalidOption,
        'the agent factory did not return an agent app',
      );
    }
    if (!port.isOpen) return;
    connection = app.connect(stream);
    // The SDK does not propagate close: end the connection when the agent connection ends, and vice versa.
    void connection.closed.then(() => port.close(shuttingDown ? CloseCode.GoingAway : CloseCode.Normal));
  })().catch((error: unknown) => {
    logger.error('agent connection failed', { connection: connectionId, error: String(error) });
    port.close(CloseCode.InternalError, 'agent connection failed');
  });
  const done = (async () => {
    await port.closed;
    await started;
    connection?.close();
    // A misbehaving app whose `closed` never settles must not hold up server shutdown.
    await Promise.race([connection?.closed.catch(() => {}), unrefDelay(AGENT_CLOSE_GRACE_MS)]);
  })();
  return {
    done,
    get pendingRequests() {
      return stream.pendingRequests;
    },
    shutdown(reason) {
      shuttingDown = true;
      port.goAway(reason, unrefDelay(CLOSE_ANSWER_WAIT_MS));
      connection?.close();
    },
  };
}

/**
 * Serves an in-process SDK agent app over Streamable HTTP and WebSocket: a fresh agent connection per connection. Pass a
 * factory to get a fresh app (and fresh closures) per connection; a plain app is connected once per socket.
 *
 * @param agentOrFactory - An `AgentApp` or a function returning one (sync or async), called per connection.
 * @param options - Serve options (host, port, token, allow-lists, limits, ...).
 * @returns The running server.
 * @throws {@link AcpRemoteError} `INVALID_OPTION`, `UNAUTHENTICATED_PUBLIC_BIND`, or `LISTEN_FAILED`.
 * @example
 * ```ts
 * import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
 * const server = await serveAcp(
 *   () => agent({ name: 'demo' }).onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION })),
 *   { port: 0 },
 * );
 * console.error(`Serving ACP at ${server.endpoint}`);
 * ```
 */
export async function serveAcp(
  agentOrFactory: AgentAppSource,
  options: ServeOptions = {},
): Promise<RemoteServer> {
  if (
    typeof agentOrFactory !== 'function' &&
    (typeof agentOrFactory !== 'object' || agentOrFactory === null)
  ) {
    throw new AcpRemoteError(
      AcpRemoteErrorCode.InvalidOption,
      'serveAcp needs an agent app or a factory of one',
    );
  }
  const resolved = resolveServeOptions(options);
  return RemoteServerHost.start(resolved, (port, context) =>
    serveAgentConnection(port, agentOrFactory, context),
  );
}
