// The few helpers the minimal reference relay and mirror share (kept apart from @acpkit/remote on purpose: the
// references must not get faster or slower when our package changes).
import type { Writable } from 'node:stream';
import type WebSocket from 'ws';

/** Corks `stream` until the end of the current event-loop turn, once per turn. */
export function tickCork(stream: Writable): () => void {
  let corked = false;
  const release = () => {
    corked = false;
    stream.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    stream.cork();
    process.nextTick(release);
  };
}

/** The TCP socket under a `ws` socket (for cork and 'drain'). */
export function tcpSocketOf(webSocket: WebSocket): Writable {
  return (webSocket as unknown as { _socket: Writable })._socket;
}
