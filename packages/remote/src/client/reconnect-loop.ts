// What every reconnect of a dropped client WebSocket shares, whichever resume it dials (acpkit.resume.v1, the
// durable-resume draft): the loop of attempts within the server's window, its log lines and events, the socket's
// watch, and what a refused upgrade means.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import type { ConnectionEvent, ResumeFailureReason } from '../options/connection-events.js';
import type { ResolvedConnectOptions } from '../options/validation.js';
import type { PortClose } from '../relay/frame-port.js';
import { CloseCode } from '../shared/constants.js';
import { ResumeRefusedError } from '../shared/errors.js';
import { reconnectBackoffMs } from '../shared/reconnect-backoff.js';
import { type OpenRequest, openWebSocket } from '../websocket/client-socket.js';
import { startHeartbeat } from '../websocket/heartbeat.js';
import { isResumeRefusalReason, REFUSAL_EXPLANATIONS } from '../websocket/resume/resume-protocol.js';
import type { WebSocketPort } from '../websocket/websocket-port.js';

/** The least time an attempt gets to open and be answered, even at the end of the window. */
export const MIN_ATTEMPT_MS = 1_000;

/** Heartbeats and error logging for one client socket (the first and every reconnected one). */
export function watchSocket(socket: WebSocket, resolved: ResolvedConnectOptions): void {
  const { logger } = resolved;
  startHeartbeat(socket, resolved.pingIntervalMs, () => logger.warn('connection terminated: missed pong'));
  socket.on('error', (error) => logger.warn('WebSocket error', { error: error.message }));
}

/** How one reconnect attempt ended. */
export type AttemptResult =
  | { readonly kind: 'resumed' }
  | { readonly kind: 'retry'; readonly error: string }
  | { readonly kind: 'failed'; readonly reason: ResumeFailureReason; readonly message: string }
  | { readonly kind: 'ended' };

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

/**
 * One drop of a resumable client connection: attempts (each a subclass's {@link attempt}) at once, then with the
 * shared jittered backoff, until one resumes, the server refuses, or the server's resume window and 1.5 ping
 * intervals have passed (the server may notice the drop that much later); a failure ends the port with a
 * `resume-failed` event carrying a {@link ResumeRefusedError} (the seam the session carry takes over from).
 */
export abstract class ReconnectLoop {
  protected readonly started = performance.now();
  protected attempts = 0;

  constructor(
    protected readonly port: WebSocketPort,
    protected readonly resolved: ResolvedConnectOptions,
    /** Aborted when the port ends. */
    protected readonly ended: AbortSignal,
    /** The server's resume window. */
    protected readonly windowMs: number,
    /** Which resume this loop dials (log lines and the error's `wire`). */
    protected readonly wire: ResumeRefusedError['wire'],
  ) {}

  /** One attempt, given the moment the loop gives up. */
  protected abstract attempt(deadline: number): Promise<AttemptResult>;

  /** Fields every log line of this loop carries (the durable-resume draft names its wire). */
  protected get logFields(): Record<string, string> {
    return this.wire === 'durable-resume' ? { wire: this.wire } : {};
  }

  async run(dropped: PortClose): Promise<void> {
    const { logger } = this.resolved;
    const deadline = this.started + this.windowMs + Math.round(1.5 * this.resolved.pingIntervalMs);
    logger.warn('connection interrupted; resuming', {
      code: dropped.code,
      windowMs: this.windowMs,
      ...this.logFields,
    });
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

  /** The time an attempt may take to open and be answered. */
  protected attemptTimeoutMs(deadline: number): number {
    return Math.min(
      this.resolved.openTimeoutMs,
      Math.max(MIN_ATTEMPT_MS, Math.ceil(deadline - performance.now())),
    );
  }

  /**
   * Opens an attempt's socket within `timeoutMs` (terminated at once if the client ends meanwhile): the open socket and
   * the subprotocol the server selected, or the attempt's result when it did not open.
   */
  protected async openAttemptSocket(
    timeoutMs: number,
    request: OpenRequest,
  ): Promise<{ readonly socket: WebSocket; readonly protocol: string } | { readonly result: AttemptResult }> {
    const { socket, outcome } = openWebSocket(
      this.resolved.url.toString(),
      this.resolved,
      timeoutMs,
      request,
    );
    const stopListening = onAbort(this.ended, () => socket.terminate());
    const opened = await outcome;
    stopListening();
    if (!this.port.isOpen) {
      if (opened.kind === 'open') socket.close(CloseCode.Normal, 'the client ended meanwhile');
      return { result: { kind: 'ended' } };
    }
    switch (opened.kind) {
      case 'timeout':
        return { result: { kind: 'retry', error: `no connection within ${timeoutMs} ms` } };
      case 'failed':
        return { result: { kind: 'retry', error: opened.error.message } };
      case 'refused':
        return { result: refusedAttempt(opened.status, opened.body, opened.resumeRefusal) };
      case 'open':
        return { socket, protocol: opened.protocol };
    }
  }

  /** The server's answer to a resume on `socket`; a server that accepts the socket but never answers is cut off. */
  protected async answerWithin<T>(socket: WebSocket, timeoutMs: number, answer: Promise<T>): Promise<T> {
    const timer = setTimeout(() => socket.terminate(), timeoutMs);
    try {
      return await answer;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits between attempts; cut short when the port ends meanwhile (nothing is left pending then). */
  private async sleep(milliseconds: number): Promise<void> {
    // Rejects (AbortError) only when the port ended: the loop then sees `!port.isOpen` and stops.
    await delay(Math.max(0, milliseconds), undefined, { signal: this.ended }).catch(() => {});
  }

  /** The connection goes on over a new socket: logged and told. */
  protected resumed(replayedFrames: number): void {
    const downtimeMs = Math.round(performance.now() - this.started);
    this.resolved.logger.info('connection resumed', {
      attempts: this.attempts,
      downtimeMs,
      replayedFrames,
      ...this.logFields,
    });
    this.notify({ type: 'resumed', attempts: this.attempts, downtimeMs, replayedFrames });
  }

  private fail(dropped: PortClose, reason: ResumeFailureReason, message: string): void {
    const downtimeMs = Math.round(performance.now() - this.started);
    this.resolved.logger.error('resume failed', {
      reason,
      attempts: this.attempts,
      downtimeMs,
      error: message,
      ...this.logFields,
    });
    this.notify({
      type: 'resume-failed',
      reason,
      message,
      error: new ResumeRefusedError(reason, message, this.wire),
    });
    this.port.end({ code: dropped.code, reason: `resume failed (${reason}): ${message}` });
  }

  protected notify(event: ConnectionEvent): void {
    try {
      this.resolved.onConnectionEvent?.(event);
    } catch (error) {
      this.resolved.logger.warn('onConnectionEvent threw', { error: String(error) });
    }
  }
}
