import type { WebSocket } from 'ws';

/**
 * Pings `socket` every `intervalMs` and terminates it when the previous ping got no pong (the `ws` README pattern).
 * Returns a function that stops the timer. `intervalMs` 0 disables heartbeats.
 */
export function startHeartbeat(socket: WebSocket, intervalMs: number, onMissedPong: () => void): () => void {
  if (intervalMs <= 0) return () => {};
  let alive = true;
  const onPong = () => {
    alive = true;
  };
  socket.on('pong', onPong);
  const timer = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (!alive) {
      onMissedPong();
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    socket.off('pong', onPong);
  };
  socket.once('close', stop);
  return stop;
}
