// The server's WebSocket acceptor: completes the handshake of an upgrade admission let in, and opens its connection
// (new, resumed with acpkit.resume.v1 or the durable-resume draft's `stream/resume`, or refused with 1001 when the
// server closed meanwhile).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { ResolvedServeOptions } from '../options/validation.js';
import type { FrameRefusalReason } from '../relay/relay-metrics.js';
import { type ConnectionOpener, SHUTDOWN_REASON } from '../seams/connection.js';
import type { Refusal } from '../seams/refusal.js';
import { clientIdentity } from '../sessions/session-keeper.js';
import { newConnectionId } from '../shared/connection-id.js';
import { CloseCode } from '../shared/constants.js';
import { hardPayloadCap } from '../shared/fixed-limits.js';
import { CONNECTION_ID_HEADER } from '../streamable-http/protocol.js';
import { rawDataToBuffer } from '../wire/inbound.js';
import type { DurableSockets } from './durable/durable-sockets.js';
import { startHeartbeat } from './heartbeat.js';
import { RESUME_SUBPROTOCOL } from './resume/resume-protocol.js';
import type { ResumableSession, ResumeRegistry } from './resume/resume-registry.js';
import {
  mayBeStreamResume,
  readStreamResume,
  STREAM_RESUME_REPEATED,
  streamResumeRefusalFrames,
} from './stream-resume.js';
import { WebSocketPort } from './websocket-port.js';

/** How long a socket closed at shutdown before its first frame gets to answer the close frame. */
const CLOSE_GRACE_MS = 1_000;

/** The log label of a socket's heartbeat and errors: `pending` until the socket is a connection's. */
interface SocketLabel {
  connection: number | string;
}

/** How a socket becomes a connection. */
interface Opening {
  /** The socket selected acpkit.resume.v1. */
  readonly resumable: boolean;
  /** The RFD WebSocket's `Acp-Connection-Id` (on `<mount>`). */
  readonly rfdConnectionId: string | undefined;
  /** A frame read before the port existed (the first, when it was not a `stream/resume`). */
  readonly first?: { readonly data: RawData; readonly isBinary: boolean };
  /** The heartbeat started while the socket waited for its first frame, and its label. */
  readonly prepared?: { readonly label: SocketLabel; readonly stop: () => void };
}

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
  /** The durable-resume draft's `stream/resume` on the RFD WebSocket, when the server keeps messages for it. */
  readonly durable?: DurableSockets | undefined;
  /**
   * The server's admission of a new connection (shutdown, drain, `maxConnections`), the refusal logged and counted:
   * asked for a socket let in because it named a connection to resume, once its first message did not resume it.
   */
  readonly admit?: (request: IncomingMessage) => Refusal | undefined;
}

/**
 * An upgrade the server's admission let in: a new connection, a resume of `session`, or (`named`) an RFD WebSocket let
 * in past the drain and the connection cap because it names a connection it may resume; should its first message not
 * resume it, it must pass them after all.
 */
export interface AdmittedUpgrade {
  readonly ok: true;
  readonly resume?: { session: ResumableSession; received: number };
  readonly named?: true;
}

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
  /** RFD WebSockets whose first frame has not come yet (counted in {@link pendingUpgrades}). */
  readonly #awaiting = new Set<WebSocket>();
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

  /**
   * Handshakes in progress, and RFD WebSockets waiting for their first frame (a `stream/resume` takes over a
   * connection; anything else opens one): both count against `maxConnections`, and a drain waits for them.
   */
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

  /** Stops accepting (the server closes): sockets still waiting for their first frame are closed (1001). */
  close(): void {
    this.#server.close();
    for (const webSocket of this.#awaiting) {
      webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
      setTimeout(() => webSocket.terminate(), CLOSE_GRACE_MS).unref();
    }
  }

  /** The handshake completed: a new connection, a resumed one, or (closing meanwhile) a 1001. */
  #complete(webSocket: WebSocket, request: IncomingMessage, decision: AdmittedUpgrade): void {
    const { opener, resumes } = this.#options;
    if (!opener.accepting) {
      opener.metrics.connectionRefused('shutdown', 'websocket');
      webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
      opener.settled();
      return;
    }
    const resume = decision.resume;
    if (resume !== undefined) {
      this.#prepare(webSocket, { connection: resume.session.connectionId });
      resumes?.attach(resume.session, webSocket, resume.received, request.socket.remoteAddress);
      opener.settled();
      return;
    }
    const resumable = resumes !== undefined && webSocket.protocol === RESUME_SUBPROTOCOL;
    const rfdConnectionId = this.#rfdConnectionIds.get(request);
    // The durable-resume draft: an RFD WebSocket's first frame may take over a connection this server holds.
    if (rfdConnectionId !== undefined && this.#options.durable !== undefined && !resumable) {
      this.#awaitFirstFrame(webSocket, request, rfdConnectionId, decision.named === true);
      return;
    }
    this.#open(webSocket, request, { resumable, rfdConnectionId });
  }

  /** Opens the connection the socket starts (through the server's opener), handing it a frame read before. */
  #open(webSocket: WebSocket, request: IncomingMessage, opening: Opening): void {
    const { opener, resumes, resolved } = this.#options;
    const { resumable, rfdConnectionId, prepared } = opening;
    const durable = rfdConnectionId === undefined || resumable ? undefined : this.#options.durable;
    const identity = resumable || durable !== undefined ? clientIdentity(request.headers) : undefined;
    const port = opener.open({
      transport: 'websocket',
      remoteAddress: request.socket.remoteAddress,
      ...(resumable ? { logFields: { resumable: true } } : {}),
      ...(durable !== undefined ? { logFields: { resumable: true, wire: 'durable-resume' } } : {}),
      makePort: (connectionId, log) => {
        const resume = resumable
          ? resumes!.open(identity!, connectionId)
          : durable?.open(rfdConnectionId!, identity!, connectionId);
        if (prepared !== undefined) prepared.label.connection = connectionId;
        return {
          port: new WebSocketPort(webSocket, {
            maxMessageBytes: resolved.maxMessageBytes,
            log,
            peer: 'client',
            pauseWhenFull: true,
            metrics: opener.metrics,
            stallTimeoutMs: resolved.stallTimeoutMs,
            ...(rfdConnectionId !== undefined ? { firstMessage: 'initialize' as const } : {}),
            ...(durable !== undefined ? { streamResumeRefusal: STREAM_RESUME_REPEATED } : {}),
            ...(resume !== undefined ? { resume } : {}),
          }),
          // The heartbeat's own stop: it lets go of the socket once that closes, so keeping it holds no socket.
          onEnded: prepared?.stop ?? this.#prepare(webSocket, { connection: connectionId }),
        };
      },
    });
    if (port !== undefined && opening.first !== undefined)
      (port as WebSocketPort).deliver(opening.first.data, opening.first.isBinary);
  }

  /**
   * An RFD WebSocket of a server that resumes them: its first frame decides. A `stream/resume` naming a connection
   * this server holds for the same client puts the socket under it (answered, replayed, live); one it cannot honour
   * is refused (`stream/resume_failed`) and the socket opens a new connection, waiting for `initialize`; anything
   * else opens a new connection with that frame. Meanwhile the socket counts as a handshake in progress.
   */
  #awaitFirstFrame(
    webSocket: WebSocket,
    request: IncomingMessage,
    rfdConnectionId: string,
    named: boolean,
  ): void {
    const { opener, resolved } = this.#options;
    const durable = this.#options.durable!;
    const label: SocketLabel = { connection: 'pending' };
    const prepared = { label, stop: this.#prepare(webSocket, label) };
    this.#pending += 1;
    this.#awaiting.add(webSocket);
    const settle = (): boolean => {
      if (!this.#awaiting.delete(webSocket)) return false;
      this.#pending -= 1;
      webSocket.off('message', onFirst);
      webSocket.off('close', onClose);
      return true;
    };
    const onClose = () => {
      if (settle()) opener.settled();
    };
    const onFirst = (data: RawData, isBinary: boolean) => {
      if (!settle()) return;
      if (!opener.accepting) {
        opener.metrics.connectionRefused('shutdown', 'websocket');
        webSocket.close(CloseCode.GoingAway, SHUTDOWN_REASON);
        opener.settled();
        return;
      }
      const frame = isBinary ? undefined : rawDataToBuffer(data);
      const asked =
        frame !== undefined && frame.length <= resolved.maxMessageBytes && mayBeStreamResume(frame)
          ? readStreamResume(frame)
          : undefined;
      if (asked === undefined) {
        if (!this.#admittedAfterAll(webSocket, request, named)) return;
        this.#open(webSocket, request, {
          resumable: false,
          rfdConnectionId,
          first: { data: frame ?? data, isBinary },
          prepared,
        });
        return;
      }
      const outcome = asked.ok
        ? durable.resume(asked, clientIdentity(request.headers), webSocket, request.socket.remoteAddress)
        : ({ ok: false, refusal: { reason: 'invalid', message: asked.message } } as const);
      opener.metrics.durableResume('websocket', outcome.ok ? 'accepted' : outcome.refusal.reason);
      if (outcome.ok) {
        label.connection = outcome.connection;
        opener.settled();
        return;
      }
      // Refused, never a live stream: the socket is a new connection, whose first message must be initialize.
      opener.logger.info('stream/resume refused', {
        reason: outcome.refusal.reason,
        remoteAddress: request.socket.remoteAddress,
      });
      for (const text of streamResumeRefusalFrames(asked.id, outcome.refusal)) webSocket.send(text);
      if (!this.#admittedAfterAll(webSocket, request, named)) return;
      this.#open(webSocket, request, { resumable: false, rfdConnectionId, prepared });
    };
    webSocket.on('message', onFirst);
    webSocket.once('close', onClose);
  }

  /**
   * Whether a socket let in past the drain and the cap (it named a connection to resume) may open a new connection now
   * that it did not resume one; refused, it is closed (1001, the refusal's reason).
   */
  #admittedAfterAll(webSocket: WebSocket, request: IncomingMessage, named: boolean): boolean {
    const refusal = named ? this.#options.admit?.(request) : undefined;
    if (refusal === undefined) return true;
    webSocket.close(CloseCode.GoingAway, refusal.body.trim());
    this.#options.opener.settled();
    return false;
  }

  /**
   * What every accepted socket gets, new or resumed: the size-limit close reason, an error listener and a heartbeat
   * (it stops when that socket closes; the connection's port watches for stalls). Returns the heartbeat's stop.
   * `label` names the socket's connection in log lines (it may change once the socket becomes one's).
   */
  #prepare(webSocket: WebSocket, label: SocketLabel): () => void {
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
      logger.warn('WebSocket error', { connection: label.connection, error: error.code ?? error.message });
    });
    return startHeartbeat(webSocket, pingIntervalMs, () => {
      metrics.heartbeatTimedOut();
      logger.warn('connection terminated: missed pong', { connection: label.connection });
    });
  }
}
