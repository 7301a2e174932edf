// The server's WebSocket acceptor: completes the handshake of an upgrade admission let in, and opens its connection
// (new, resumed with acpkit.resume.v1, or refused with 1001 when the server closed meanwhile).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ResolvedServeOptions } from '../options/validation.js';
import type { FrameRefusalReason } from '../relay/relay-metrics.js';
import type { UpgradeDecision } from '../server/admission.js';
import { type ConnectionOpener, SHUTDOWN_REASON } from '../server/connection.js';
import { clientIdentity } from '../sessions/session-keeper.js';
import { newConnectionId } from '../shared/connection-id.js';
import { CloseCode } from '../shared/constants.js';
import { hardPayloadCap } from '../shared/fixed-limits.js';
import { CONNECTION_ID_HEADER } from '../streamable-http/protocol.js';
import { startHeartbeat } from './heartbeat.js';
import { RESUME_SUBPROTOCOL } from './resume/resume-protocol.js';
import type { ResumeRegistry } from './resume/resume-registry.js';
import { WebSocketPort } from './websocket-port.js';

/** `ws` error codes of frames it refuses itself, as frame-refusal metric reasons. */
const WS_ERROR_REASONS: Readonly<Record<string, FrameRefusalReason>> = {
  WS_ERR_INVALID_UTF8: 'invalid_utf8',
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 'oversize',
};

/** Options of {@link WebSocketAcceptor}. */
export interface WebSocketAcceptorOptions {
  readonly resolved: ResolvedServeOptions;
  readonly opener: ConnectionOpener;
  /** Resume (`acpkit.resume.v1`) when the server offers it. */
  readonly resumes: ResumeRegistry | undefined;
}

type AdmittedUpgrade = Extract<UpgradeDecision, { ok: true }>;

/**
 * Completes the WebSocket handshakes the server's admission let in, on both WebSocket paths: `<mount>/ws` (the
 * acpremote wire, with resume) and `<mount>` (the RFD WebSocket, whose 101 names its `Acp-Connection-Id`). Each new
 * socket gets a heartbeat, an error listener and the size-limit close reason, then its connection opens through the
 * server's {@link ConnectionOpener}; a resume puts the socket under the session it names.
 *
 * @example
 * ```ts
 * const acceptor = new WebSocketAcceptor({ resolved, opener, resumes });
 * httpServer.on('upgrade', (request, socket, head) => acceptor.accept(request, socket, head, decision, rfd));
 * ```
 */
export class WebSocketAcceptor {
  /** Upgrades admitted whose handshake has not completed (they count against `maxConnections`). */
  #pending = 0;
  readonly #server: WebSocketServer;
  /** The `Acp-Connection-Id` of each RFD WebSocket upgrade in progress, for its 101. */
  readonly #rfdConnectionIds = new WeakMap<IncomingMessage, string>();
  readonly #options: WebSocketAcceptorOptions;

  constructor(options: WebSocketAcceptorOptions) {
    this.#options = options;
    const { resumes, resolved } = options;
    this.#server = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: hardPayloadCap(resolved.maxMessageBytes),
      // The resume subprotocol when resume is on; otherwise the first one offered, as `ws` picks by default.
      handleProtocols: (protocols: Set<string>) => {
        if (resumes !== undefined && protocols.has(RESUME_SUBPROTOCOL)) return RESUME_SUBPROTOCOL;
        for (const protocol of protocols) if (protocol !== RESUME_SUBPROTOCOL) return protocol;
        return false;
      },
    });
    // The RFD WebSocket's 101 carries its connection id, as the ACP SDKs' servers send it.
    this.#server.on('headers', (headers: string[], request: IncomingMessage) => {
      const connectionId = this.#rfdConnectionIds.get(request);
      if (connectionId !== undefined) headers.push(`${CONNECTION_ID_HEADER}: ${connectionId}`);
    });
  }

  /** Handshakes in progress. */
  get pendingUpgrades(): number {
    return this.#pending;
  }

  /**
   * Completes the handshake of an admitted upgrade; `rfd` marks the RFD WebSocket (on the mount path: its first
   * message must be `initialize`, and its 101 names its connection).
   */
  accept(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    decision: AdmittedUpgrade,
    rfd: boolean,
  ): void {
    const { opener } = this.#options;
    this.#pending += 1;
    if (rfd && decision.resume === undefined)
      this.#rfdConnectionIds.set(request, newConnectionId(this.#options.resolved.instanceId));
    let settled = false;
    // handleUpgrade answers an invalid handshake itself (400) without calling back; release the slot then.
    socket.once('close', () => {
      if (settled) return;
      settled = true;
      this.#pending -= 1;
      opener.metrics.connectionRefused('malformed', 'websocket');
      opener.settled();
    });
    this.#server.handleUpgrade(request, socket, head, (webSocket) => {
      settled = true;
      this.#pending -= 1;
      this.#complete(webSocket, request, decision);
    });
  }

  /** Stops accepting (the server closes). */
  close(): void {
    this.#server.close();
  }

  /** The handshake completed: a new connection, a resumed one, or (closing meanwhile) a 1001. */
  #complete(webSocket: WebSocket, request: IncomingMessage, decision: AdmittedUpgrade): void {
    const { opener, resumes, resolved } = this.#options;
    if (!opener.accepting) {
      opener.metrics.connectionRefused('shutdown', 'websocket');
      webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
      opener.settled();
      return;
    }
    const resume = decision.resume;
    if (resume !== undefined) {
      this.#prepare(webSocket, resume.session.connectionId);
      resumes?.attach(resume.session, webSocket, resume.received, request.socket.remoteAddress);
      opener.settled();
      return;
    }
    const resumable = resumes !== undefined && webSocket.protocol === RESUME_SUBPROTOCOL;
    const rfd = this.#rfdConnectionIds.has(request);
    const identity = resumable ? clientIdentity(request.headers) : undefined;
    opener.open({
      transport: 'websocket',
      remoteAddress: request.socket.remoteAddress,
      ...(resumable ? { logFields: { resumable: true } } : {}),
      makePort: (connectionId, log) => ({
        port: new WebSocketPort(webSocket, {
          maxMessageBytes: resolved.maxMessageBytes,
          log,
          peer: 'client',
          pauseWhenFull: true,
          metrics: opener.metrics,
          stallTimeoutMs: resolved.stallTimeoutMs,
          ...(rfd ? { firstMessage: 'initialize' as const } : {}),
          ...(identity !== undefined ? { resume: resumes!.open(identity, connectionId) } : {}),
        }),
        // The heartbeat's own stop: it lets go of the socket once that closes, so keeping it holds no socket.
        onEnded: this.#prepare(webSocket, connectionId),
      }),
    });
  }

  /**
   * What every accepted socket gets, new or resumed: the size-limit close reason, an error listener and a heartbeat
   * (it stops when that socket closes; the connection's port watches for stalls). Returns the heartbeat's stop.
   */
  #prepare(webSocket: WebSocket, connectionId: number): () => void {
    const { resolved, opener } = this.#options;
    const { maxMessageBytes, pingIntervalMs } = resolved;
    const { logger, metrics } = opener;
    // ws closes a message over its payload cap itself, with code 1009 and no reason; give that close the same
    // reason our own size check gives, so the peer learns the limit either way.
    const closeSocket = webSocket.close.bind(webSocket);
    webSocket.close = (code?: number, reason?: string | Buffer) =>
      closeSocket(
        code,
        code === CloseCode.MessageTooBig && (reason === undefined || reason.length === 0)
          ? `message exceeds the ${maxMessageBytes}-byte limit`
          : reason,
      );
    // ws reports protocol violations (invalid UTF-8, oversize) as 'error' before closing with 1007/1009;
    // without a listener they would crash the process.
    webSocket.on('error', (error: Error & { code?: string }) => {
      metrics.frameRefused('client', WS_ERROR_REASONS[error.code ?? ''] ?? 'protocol_error');
      logger.warn('WebSocket error', { connection: connectionId, error: error.code ?? error.message });
    });
    return startHeartbeat(webSocket, pingIntervalMs, () => {
      metrics.heartbeatTimedOut();
      logger.warn('connection terminated: missed pong', { connection: connectionId });
    });
  }
}
