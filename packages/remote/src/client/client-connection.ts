// A client's connection to a server, by transport: the WebSocket port over the opened socket (and the reconnect loop
// that resumes it: acpkit.resume.v1, or the durable-resume draft's `stream/resume`), or a Streamable HTTP connection.
import type { ResolvedConnectOptions } from '../options/validation.js';
import { FrameLog } from '../relay/frame-log.js';
import type { ClientConnection } from '../seams/client-connection-shape.js';
import { closeClientPort } from '../seams/close-client-port.js';
import { CloseCode } from '../shared/constants.js';
import { ResumeRefusedError } from '../shared/errors.js';
import { openHttpClientConnection } from '../streamable-http/client/open-http-connection.js';
import { openClientSocket } from '../websocket/client-socket.js';
import { DurableDial } from '../websocket/durable/durable-dial.js';
import { ResumeLink } from '../websocket/resume/resume-link.js';
import { RESUME_SUBPROTOCOL, resumeRequestHeaders } from '../websocket/resume/resume-protocol.js';
import { WebSocketPort } from '../websocket/websocket-port.js';
import { DurableReconnection } from './durable-reconnection.js';
import { type AttemptResult, ReconnectLoop, watchSocket } from './reconnect-loop.js';

/** Client connections open in this process: each gets a close frame if the process exits under it. */
const openPorts = new Set<WebSocketPort>();
let exitHookInstalled = false;

/**
 * The last moment of a process with client connections open (`process.exit()` after a second SIGTERM, an uncaught
 * exception): each gets its close frame (1001) written now, so its server ends the session instead of keeping it for
 * a resume that will never come. Best effort: a frame queued behind unsent data dies with the process.
 */
function closeOpenPortsOnExit(): void {
  for (const port of openPorts) port.closeAtExit(CloseCode.GoingAway, 'client exiting');
}

function trackUntilClosed(port: WebSocketPort): void {
  openPorts.add(port);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', closeOpenPortsOnExit);
  }
  void port.closed.then(() => openPorts.delete(port));
}

/**
 * Opens a client connection (`connectAcp`, `runMirror`) with the transport the options resolved: a WebSocket
 * (metadata, the socket, and a port with resume when the server selected it) or ACP's Streamable HTTP
 * (`openHttpClientConnection`). `peer` names the server in log lines.
 *
 * @throws {@link AcpRemoteError} `AUTHENTICATION_FAILED` or `CONNECTION_FAILED` when it cannot be opened.
 */
export function openClientConnection(
  resolved: ResolvedConnectOptions,
  peer: string,
): Promise<ClientConnection> {
  return resolved.transport === 'streamable-http'
    ? openHttpClientConnection(resolved, peer)
    : openWebSocketConnection(resolved, peer);
}

/**
 * A WebSocket connection: metadata, the socket, and a port with resume when the server selected it. After an
 * unclean drop the port waits while a reconnect loop runs (attempts with exponential backoff and jitter until the
 * server's resume window and 1.5 ping intervals have passed, one more at the end); the port ends when a resume is
 * refused or impossible.
 *
 * @throws {@link AcpRemoteError} as `openClientSocket` does, for the first connection only.
 */
async function openWebSocketConnection(
  resolved: ResolvedConnectOptions,
  peer: string,
): Promise<ClientConnection> {
  const { socket, metadata, resumeSelected, connectionId } = await openClientSocket(resolved);
  watchSocket(socket, resolved);
  const log = new FrameLog(resolved.logger);
  let port: WebSocketPort | undefined;
  // Aborted when the port ends: what reconnect attempts listen to (and stop listening to after each one, so a
  // long-lived connection holds nothing per drop; a reaction on `port.closed` would stay until the end).
  const ended = new AbortController();
  const link = resumeSelected
    ? ResumeLink.forClient(resolved.resumeBufferBytes, resolved.maxMessageBytes, {
        detached: (close) => void new Reconnection(port!, link!, resolved, ended.signal).run(close),
        ended: () => ended.abort(),
      })
    : undefined;
  // The durable-resume draft: an RFD WebSocket (its 101 named the connection) that did not take acpkit.resume.v1.
  // It is resumable once the answer to initialize advertised retention (the dial reads it).
  const dial =
    link === undefined && resolved.resume && resolved.resumeWire !== 'acpkit' && connectionId !== undefined
      ? new DurableDial(connectionId, resolved.resumeBufferBytes, {
          detached: (close) => void new DurableReconnection(port!, dial!, resolved, ended.signal).run(close),
          ended: () => ended.abort(),
        })
      : undefined;
  const resume = link ?? dial;
  port = new WebSocketPort(socket, {
    maxMessageBytes: resolved.maxMessageBytes,
    log,
    peer,
    pauseWhenFull: false,
    stallTimeoutMs: resolved.stallTimeoutMs,
    ...(resume !== undefined ? { resume } : {}),
  });
  const opened = port;
  trackUntilClosed(opened);
  let closedHere = false;
  const transportResumed = () =>
    link !== undefined
      ? link.welcomed !== undefined && opened.resume !== undefined
      : dial?.retention !== undefined;
  // Without a transport resume (resume off here or on the server, a server that advertises no retention), an unclean
  // drop is told as the refusal the draft makes of a resume nobody can take: `unsupported`, through the same
  // `resume-failed` seam as every refused resume, so the client can resume its sessions on a new connection.
  void opened.closed.then((close) => {
    if (closedHere || close.code !== 1006 || transportResumed()) return;
    const message = `the connection dropped (${close.reason || 'no close frame'}) and no transport resume was negotiated (acpkit.resume.v1, or the durable-resume draft's transport.resumable)`;
    resolved.logger.warn('resume failed', { reason: 'unsupported', error: message });
    try {
      resolved.onConnectionEvent?.({
        type: 'resume-failed',
        reason: 'unsupported',
        message,
        error: new ResumeRefusedError('unsupported', message, 'durable-resume'),
      });
    } catch (error) {
      resolved.logger.warn('onConnectionEvent threw', { error: String(error) });
    }
  });
  return {
    port: opened,
    metadata,
    log,
    resumeSelected: link !== undefined,
    get resumable() {
      // A link the server never welcomed (it echoed the subprotocol without speaking it) was dropped from the port.
      return transportResumed();
    },
    close(reason, duringReconnect = 'wait') {
      closedHere = true;
      if (!opened.isOpen) return;
      if (duringReconnect === 'abandon' && !opened.isLive) {
        opened.terminate({ code: CloseCode.Normal, reason: reason ?? '' });
        return;
      }
      // Reads may be paused for output backpressure; the server's close frame must still get through.
      const current = opened.socket;
      if (opened.isAttached && current.isPaused) current.resume();
      closeClientPort(opened, reason);
    },
  };
}

/** One drop of a connection resumed with acpkit.resume.v1: its reconnect attempts (a token and a count on the upgrade). */
class Reconnection extends ReconnectLoop {
  constructor(
    port: WebSocketPort,
    private readonly link: ResumeLink,
    resolved: ResolvedConnectOptions,
    ended: AbortSignal,
  ) {
    super(port, resolved, ended, link.welcomed!.windowMs, 'acpkit.resume.v1');
  }

  protected async attempt(deadline: number): Promise<AttemptResult> {
    const { port, link, resolved } = this;
    const timeoutMs = this.attemptTimeoutMs(deadline);
    const opened = await this.openAttemptSocket(timeoutMs, {
      offerResume: true,
      headers: resumeRequestHeaders(link.welcomed!.token, link.received),
    });
    if ('result' in opened) return opened.result;
    const { socket } = opened;
    if (opened.protocol !== RESUME_SUBPROTOCOL) {
      // A new, plain session on a server that no longer offers resume: not ours to keep.
      socket.close(CloseCode.Normal, 'resume not available');
      return {
        kind: 'failed',
        reason: 'unsupported',
        message: 'the server accepted the connection without resume (it no longer offers it)',
      };
    }
    watchSocket(socket, resolved);
    const welcomed = link.resumeAsClient((replayedFrames) => this.resumed(replayedFrames));
    port.attach(socket);
    // A server that accepts the socket but never welcomes it: the attempt is given up (the socket dropping retries).
    const result = await this.answerWithin(socket, timeoutMs, welcomed);
    switch (result.kind) {
      case 'resumed':
        return result;
      case 'dropped':
        return { kind: 'retry', error: 'the connection dropped before the server welcomed the resume' };
      case 'ended':
        return { kind: 'ended' };
      case 'overflow':
        // Tell the server, so it ends the session instead of waiting out its window.
        socket.close(
          CloseCode.ResumeFailed,
          'overflow: the client no longer holds messages the server missed',
        );
        return {
          kind: 'failed',
          reason: 'overflow',
          message: `the client's replay buffer (${resolved.resumeBufferBytes} bytes) no longer holds messages the server missed`,
        };
    }
  }
}
