// WebSocket liveness: pings every interval, and a peer silent for 1.5 intervals is terminated.
import type { WebSocket } from 'ws';

/** Half-interval checks without a byte from the peer after which it is taken for dead (1.5 ping intervals). */
const SILENT_CHECKS_LIMIT = 3;

/** Bytes read so far from the socket's TCP stream (any frame: data, ping, pong), or undefined if unreachable. */
function bytesRead(socket: WebSocket): number | undefined {
  const tcp = (socket as unknown as { _socket?: { bytesRead?: unknown } })._socket;
  return typeof tcp?.bytesRead === 'number' ? tcp.bytesRead : undefined;
}

/**
 * Pings `socket` every `intervalMs` and terminates it when nothing at all (a pong, a ping, any message) has come
 * from the peer for 1.5 intervals, checked every half interval. Liveness never depends on reading application data
 * in time:
 * - while the relay has paused reading the socket (backpressure) the peer's frames wait unread, so no verdict is
 *   made (a paused connection is governed by the send-stall timeout only) and the silence count restarts on resume;
 *   pings keep going out, so the peer, if it reads, keeps seeing this side alive;
 * - a peer that pauses reading this socket keeps pinging us the same way, and its pings count as life.
 * Returns a function that stops the timer. `intervalMs` 0 disables heartbeats.
 *
 * @example
 * ```ts
 * const stop = startHeartbeat(socket, 25_000, () => logger.warn('connection terminated: missed pong'));
 * ```
 */
export function startHeartbeat(socket: WebSocket, intervalMs: number, onMissedPong: () => void): () => void {
  if (intervalMs <= 0) return () => {};
  let heard = false;
  // Control frames are counted by event too: the only signal when the TCP stream's byte count is unreachable.
  const onControlFrame = () => {
    heard = true;
  };
  socket.on('pong', onControlFrame);
  socket.on('ping', onControlFrame);
  let lastBytesRead = bytesRead(socket);
  let silentChecks = 0;
  let checks = 0;
  const timer = setInterval(
    () => {
      if (socket.readyState !== socket.OPEN) return;
      checks += 1;
      const bytes = bytesRead(socket);
      const heardSomething = heard || bytes !== lastBytesRead;
      heard = false;
      lastBytesRead = bytes;
      if (heardSomething || socket.isPaused) silentChecks = 0;
      else silentChecks += 1;
      if (silentChecks >= SILENT_CHECKS_LIMIT) {
        stop();
        onMissedPong();
        socket.terminate();
        return;
      }
      if (checks % 2 === 0) socket.ping();
    },
    Math.max(1, Math.floor(intervalMs / 2)),
  );
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    socket.off('pong', onControlFrame);
    socket.off('ping', onControlFrame);
  };
  socket.once('close', stop);
  return stop;
}
