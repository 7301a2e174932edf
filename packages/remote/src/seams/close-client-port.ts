// Ending a client's connection from its side: the port's own close, and a deadline for a server that never answers.
import type { FramePort } from '../relay/frame-port.js';
import { CloseCode } from '../shared/constants.js';

/** How long a closing client waits for the server's close frame before it drops the socket (`ws` would wait 30 s). */
const CLOSE_HANDSHAKE_TIMEOUT_MS = 5_000;

/**
 * Closes a client connection's port (1000, with `reason` if given): with resume, while a reconnect is under way, the close
 * follows the replay. A server that never answers the close is cut off after {@link CLOSE_HANDSHAKE_TIMEOUT_MS}.
 */
export function closeClientPort(port: FramePort, reason?: string): void {
  port.close(CloseCode.Normal, reason);
  const timer = setTimeout(
    () => port.terminate({ code: CloseCode.Normal, reason: reason ?? '' }),
    CLOSE_HANDSHAKE_TIMEOUT_MS,
  );
  timer.unref();
  void port.closed.then(() => clearTimeout(timer));
}
