// Closes a peer whose socket accepted nothing for the stall timeout, so a client that stops reading cannot hold a
// relay.
import type { WebSocket } from 'ws';
import { CloseCode } from '../shared/constants.js';

/** How long a closing socket gets to flush its close frame before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Closes `socket` when its send buffer has made no progress for `stallTimeoutMs`: the peer stopped reading. A
 * missed pong only catches peers that stop answering pings; a browser whose page stops reading still answers them,
 * so the send buffer itself is watched. Progress means the buffer emptied or shrank since the previous sample.
 * The close frame queues behind data the peer does not read, so the socket is destroyed after a short grace and
 * `onStall` (which logs the reason) is the reliable report. Returns a function that stops the guard;
 * `stallTimeoutMs` 0 disables it.
 *
 * @example
 * ```ts
 * const stop = startSendStallGuard(socket, 60_000, (ms) => logger.warn('send stalled', { ms }));
 * ```
 */
export function startSendStallGuard(
  socket: WebSocket,
  stallTimeoutMs: number,
  onStall: (stalledForMs: number) => void,
): () => void {
  if (stallTimeoutMs <= 0) return () => {};
  const sampleEveryMs = Math.max(25, Math.min(1_000, Math.floor(stallTimeoutMs / 4)));
  let previousAmount = 0;
  let lastProgressAt = performance.now();
  const timer = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    const amount = socket.bufferedAmount;
    const now = performance.now();
    if (amount === 0 || amount < previousAmount) lastProgressAt = now;
    previousAmount = amount;
    const stalledForMs = now - lastProgressAt;
    if (stalledForMs < stallTimeoutMs) return;
    stop();
    onStall(stalledForMs);
    socket.close(
      CloseCode.PolicyViolation,
      `send stalled: the peer read nothing for ${Math.round(stalledForMs)} ms`,
    );
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
  }, sampleEveryMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  socket.once('close', stop);
  return stop;
}
