// One drop of an RFD WebSocket connection resumed with the durable-resume draft: new sockets to the same URL, each
// sending `stream/resume` first, until one is answered, refused, or the server's retention window has passed.
import type { ResolvedConnectOptions } from '../options/validation.js';
import { CloseCode } from '../shared/constants.js';
import type { DialResumed, DurableDial } from '../websocket/durable/durable-dial.js';
import type { WebSocketPort } from '../websocket/websocket-port.js';
import { type AttemptResult, ReconnectLoop, watchSocket } from './reconnect-loop.js';

/**
 * The reconnect attempts of one drop of a connection that dials the durable-resume draft: each opens a socket on
 * the same URL (no subprotocol offered), puts it under the port and sends `stream/resume {connectionId, cursor}` as
 * its first message ({@link DurableDial.resumeOn}). An answer resumes (the turn states it names are told as
 * `turn-state` events); `stream/resume_failed` (or an error answer) fails the resume with the server's reason, and
 * the socket, which the server now holds as a new connection waiting for `initialize`, is closed: the client's session
 * carry then opens its own and resumes every session (`session/resume`), as after a Streamable HTTP `409`.
 *
 * @example
 * ```ts
 * const dial = new DurableDial(connectionId, bufferBytes, {
 *   detached: (close) => void new DurableReconnection(port, dial, resolved, ended.signal).run(close),
 *   ended: () => ended.abort(),
 * });
 * ```
 */
export class DurableReconnection extends ReconnectLoop {
  constructor(
    port: WebSocketPort,
    private readonly dial: DurableDial,
    resolved: ResolvedConnectOptions,
    ended: AbortSignal,
  ) {
    super(port, resolved, ended, (dial.retention?.retentionSeconds ?? 0) * 1000, 'durable-resume');
  }

  protected async attempt(deadline: number): Promise<AttemptResult> {
    const { dial, resolved } = this;
    const timeoutMs = this.attemptTimeoutMs(deadline);
    const opened = await this.openAttemptSocket(timeoutMs, { offerResume: false });
    if ('result' in opened) return opened.result;
    const { socket } = opened;
    watchSocket(socket, resolved);
    const answered = dial.resumeOn(socket, (resumed) => this.dialResumed(resumed));
    // A server that accepts the socket but never answers: the attempt is given up (the socket dropping retries).
    const result = await this.answerWithin(socket, timeoutMs, answered);
    switch (result.kind) {
      case 'resumed':
        return result;
      case 'dropped':
        return { kind: 'retry', error: 'the connection dropped before the server answered stream/resume' };
      case 'ended':
        return { kind: 'ended' };
      case 'refused':
        // The socket is a new connection on the server now: not ours (the session carry opens its own).
        socket.close(CloseCode.Normal, 'stream/resume refused');
        return { kind: 'failed', reason: result.reason, message: result.message };
    }
  }

  /** Told at the answer itself, before the replay that follows it is handed on. */
  private dialResumed(resumed: DialResumed): void {
    const { logger } = this.resolved;
    this.resumed(resumed.resent);
    if (resumed.failedRequests > 0)
      logger.warn('requests cut in flight answered with an error, not sent again', {
        requests: resumed.failedRequests,
        wire: 'durable-resume',
      });
    for (const { sessionId, turnState } of resumed.turnStates) {
      logger.info('session turn state after resume', { session: sessionId, state: turnState.state });
      this.notify({ type: 'turn-state', sessionId, turnState });
    }
  }
}
