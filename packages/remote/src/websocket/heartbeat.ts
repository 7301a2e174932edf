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
 * Returns a function that stops the timer; the heartbeat also stops when the socket closes, and from then on holds
 * no reference to it (a closed `ws` socket still holds the message it was receiving, and a caller may keep the stop
 * function for a session that outlives the socket). `intervalMs` 0 disables heartbeats.
 *
 * @example
 * ```ts
 * const stop = startHeartbeat(socket, 25_000, () => logger.warn('connection terminated: missed pong'));
 * ```
 */
export function startHeartbeat(socket: WebSocket, intervalMs: number, onMissedPong: () => void): () => void {
  if (intervalMs <= 0) return () => {};
  return new Heartbeat(socket, intervalMs, onMissedPong).stop;
}

/**
 * The state of one socket's heartbeat. Stopped, it lets go of the socket and of the caller's callback (a closure that
 * may share its scope with others that hold the socket).
 */
class Heartbeat {
  private socket: WebSocket | undefined;
  private onMissedPong: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private heard = false;
  private lastBytesRead: number | undefined;
  private silentChecks = 0;
  private checks = 0;

  constructor(socket: WebSocket, intervalMs: number, onMissedPong: () => void) {
    this.socket = socket;
    this.onMissedPong = onMissedPong;
    // Control frames are counted by event too: the only signal when the TCP stream's byte count is unreachable.
    socket.on('pong', this.onControlFrame);
    socket.on('ping', this.onControlFrame);
    socket.once('close', this.stop);
    this.lastBytesRead = bytesRead(socket);
    this.timer = setInterval(() => this.check(), Math.max(1, Math.floor(intervalMs / 2)));
    this.timer.unref();
  }

  readonly stop = (): void => {
    clearInterval(this.timer);
    const socket = this.socket;
    if (socket === undefined) return;
    this.socket = undefined;
    this.onMissedPong = undefined;
    socket.off('pong', this.onControlFrame);
    socket.off('ping', this.onControlFrame);
    socket.off('close', this.stop);
  };

  private readonly onControlFrame = (): void => {
    this.heard = true;
  };

  private check(): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== socket.OPEN) return;
    this.checks += 1;
    const bytes = bytesRead(socket);
    const heardSomething = this.heard || bytes !== this.lastBytesRead;
    this.heard = false;
    this.lastBytesRead = bytes;
    if (heardSomething || socket.isPaused) this.silentChecks = 0;
    else this.silentChecks += 1;
    if (this.silentChecks >= SILENT_CHECKS_LIMIT) {
      const onMissedPong = this.onMissedPong;
      this.stop();
      onMissedPong?.();
      socket.terminate();
      return;
    }
    if (this.checks % 2 === 0) socket.ping();
  }
}
