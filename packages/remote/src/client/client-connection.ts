// A client's connection to a server, by transport: the WebSocket port over the opened socket (and the reconnect loop
// that resumes it), or a Streamable HTTP connection.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import type { ConnectionEvent, ResumeFailureReason } from '../options/connection-events.js';
import type { ResolvedConnectOptions } from '../options/validation.js';
import { FrameLog } from '../relay/frame-log.js';
import type { PortClose } from '../relay/frame-port.js';
import type { ClientConnection } from '../seams/client-connection-shape.js';
import { closeClientPort } from '../seams/close-client-port.js';
import { CloseCode } from '../shared/constants.js';
import { ResumeRefusedError } from '../shared/errors.js';
import { reconnectBackoffMs } from '../shared/reconnect-backoff.js';
import { openHttpClientConnection } from '../streamable-http/client/open-http-connection.js';
import { openClientSocket, openWebSocket } from '../websocket/client-socket.js';
import { startHeartbeat } from '../websocket/heartbeat.js';
import { ResumeLink } from '../websocket/resume/resume-link.js';
import {
  isResumeRefusalReason,
  REFUSAL_EXPLANATIONS,
  RESUME_SUBPROTOCOL,
  resumeRequestHeaders,
} from '../websocket/resume/resume-protocol.js';
import { WebSocketPort } from '../websocket/websocket-port.js';

/** The least time an attempt gets to open and be welcomed, even at the end of the window. */
const MIN_ATTEMPT_MS = 1_000;

/** Heartbeats and error logging for one client socket (the first and every reconnected one). */
function watchSocket(socket: WebSocket, resolved: ResolvedConnectOptions): void {
  const { logger } = resolved;
  startHeartbeat(socket, resolved.pingIntervalMs, () => logger.warn('connection terminated: missed pong'));
  socket.on('error', (error) => logger.warn('WebSocket error', { error: error.message }));
}

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
  const { socket, metadata, resumeSelected } = await openClientSocket(resolved);
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
  port = new WebSocketPort(socket, {
    maxMessageBytes: resolved.maxMessageBytes,
    log,
    peer,
    pauseWhenFull: false,
    stallTimeoutMs: resolved.stallTimeoutMs,
    ...(link !== undefined ? { resume: link } : {}),
  });
  const opened = port;
  trackUntilClosed(opened);
  let closedHere = false;
  // Without acpkit.resume.v1 (resume off here or on the server; this client does not send the durable-resume draft's
  // `stream/resume`), an unclean drop is told as the refusal the draft makes of a resume nobody can take:
  // `unsupported`, through the same `resume-failed` seam as every refused resume, so the client can resume its
  // sessions on a new connection.
  void opened.closed.then((close) => {
    if (closedHere || close.code !== 1006 || (link?.welcomed !== undefined && opened.resume !== undefined))
      return;
    const message = `the connection dropped (${close.reason || 'no close frame'}) and no transport resume was negotiated (acpkit.resume.v1)`;
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
      return opened.resume !== undefined && link?.welcomed !== undefined;
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

type AttemptResult =
  | { readonly kind: 'resumed'; readonly replayedFrames: number }
  | { readonly kind: 'retry'; readonly error: string }
  | { readonly kind: 'failed'; readonly reason: ResumeFailureReason; readonly message: string }
  | { readonly kind: 'ended' };

/** One drop of a resumable client connection: the reconnect attempts until it is resumed or given up. */
class Reconnection {
  private readonly started = performance.now();
  private readonly windowMs: number;
  private attempts = 0;

  constructor(
    private readonly port: WebSocketPort,
    private readonly link: ResumeLink,
    private readonly resolved: ResolvedConnectOptions,
    /** Aborted when the port ends. */
    private readonly ended: AbortSignal,
  ) {
    this.windowMs = link.welcomed!.windowMs;
  }

  async run(dropped: PortClose): Promise<void> {
    const { logger } = this.resolved;
    // The server starts its window when it notices the drop, which may be up to 1.5 ping intervals after this side
    // did: keep trying that much longer, so a late attempt hears the server's own verdict (`expired`).
    const deadline = this.started + this.windowMs + Math.round(1.5 * this.resolved.pingIntervalMs);
    logger.warn('connection interrupted; resuming', { code: dropped.code, windowMs: this.windowMs });
    this.notify({ type: 'interrupted', code: dropped.code, reason: dropped.reason, windowMs: this.windowMs });
    for (;;) {
      if (!this.port.isOpen) return;
      this.attempts += 1;
      const result = await this.attempt(deadline);
      if (result.kind === 'ended' || result.kind === 'resumed') return;
      if (result.kind === 'failed') {
        this.fail(dropped, result.reason, result.message);
        return;
      }
      logger.debug?.('resume attempt failed', { attempt: this.attempts, error: result.error });
      const now = performance.now();
      if (now >= deadline) {
        this.fail(
          dropped,
          'unreachable',
          `no connection to the server within its resume window (${this.windowMs} ms) and 1.5 ping intervals: ${result.error}`,
        );
        return;
      }
      await this.sleep(Math.min(reconnectBackoffMs(this.attempts + 1), deadline - now));
    }
  }

  /** Waits between attempts; cut short when the port ends meanwhile (nothing is left pending then). */
  private async sleep(milliseconds: number): Promise<void> {
    // Rejects (AbortError) only when the port ended: the loop then sees `!port.isOpen` and stops.
    await delay(Math.max(0, milliseconds), undefined, { signal: this.ended }).catch(() => {});
  }

  private async attempt(deadline: number): Promise<AttemptResult> {
    const { port, link, resolved } = this;
    const timeoutMs = Math.min(
      resolved.openTimeoutMs,
      Math.max(MIN_ATTEMPT_MS, Math.ceil(deadline - performance.now())),
    );
    const { socket, outcome } = openWebSocket(resolved.url.toString(), resolved, timeoutMs, {
      offerResume: true,
      headers: resumeRequestHeaders(link.welcomed!.token, link.received),
    });
    // Ended locally while connecting: stop now rather than when the open times out.
    const stopListening = onAbort(this.ended, () => socket.terminate());
    const opened = await outcome;
    stopListening();
    if (!port.isOpen) {
      if (opened.kind === 'open') socket.close(CloseCode.Normal, 'the client ended meanwhile');
      return { kind: 'ended' };
    }
    switch (opened.kind) {
      case 'timeout':
        return { kind: 'retry', error: `no connection within ${timeoutMs} ms` };
      case 'failed':
        return { kind: 'retry', error: opened.error.message };
      case 'refused':
        return refusedAttempt(opened.status, opened.body, opened.resumeRefusal);
      case 'open':
        break;
    }
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
    // A server that accepts the socket but never welcomes it: give the attempt up (the socket dropping retries).
    const timer = setTimeout(() => socket.terminate(), timeoutMs);
    const result = await welcomed;
    clearTimeout(timer);
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

  private resumed(replayedFrames: number): void {
    const downtimeMs = Math.round(performance.now() - this.started);
    this.resolved.logger.info('connection resumed', { attempts: this.attempts, downtimeMs, replayedFrames });
    this.notify({ type: 'resumed', attempts: this.attempts, downtimeMs, replayedFrames });
  }

  private fail(dropped: PortClose, reason: ResumeFailureReason, message: string): void {
    const downtimeMs = Math.round(performance.now() - this.started);
    this.resolved.logger.error('resume failed', {
      reason,
      attempts: this.attempts,
      downtimeMs,
      error: message,
    });
    this.notify({
      type: 'resume-failed',
      reason,
      message,
      error: new ResumeRefusedError(reason, message, 'acpkit.resume.v1'),
    });
    this.port.end({ code: dropped.code, reason: `resume failed (${reason}): ${message}` });
  }

  private notify(event: ConnectionEvent): void {
    try {
      this.resolved.onConnectionEvent?.(event);
    } catch (error) {
      this.resolved.logger.warn('onConnectionEvent threw', { error: String(error) });
    }
  }
}

/** Calls `listener` once when `signal` aborts (at once if it has); returns what stops listening. */
function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** What a refused reconnect means: the server's resume refusal, refused credentials, or a reason to try again. */
function refusedAttempt(status: number, body: string, resumeRefusal: string | undefined): AttemptResult {
  if (isResumeRefusalReason(resumeRefusal)) {
    return {
      kind: 'failed',
      reason: resumeRefusal,
      message: `the server refused the resume (HTTP ${status}): ${REFUSAL_EXPLANATIONS[resumeRefusal]}`,
    };
  }
  if (status === 401 || status === 403) {
    return {
      kind: 'failed',
      reason: 'auth',
      message: `the server refused the credentials on the reconnect (HTTP ${status}${body ? `: ${body}` : ''})`,
    };
  }
  // A proxy or a server that is restarting, draining or full (502, 503, ...): it may let us in before the window ends.
  return { kind: 'retry', error: `HTTP ${status}${body ? `: ${body}` : ''}` };
}
