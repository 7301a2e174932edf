// Batching writes: one cork per event-loop turn, and the socket under a ws WebSocket.
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';

/** The newline that ends every NDJSON line, shared so no per-message buffer is made for it. */
export const NEWLINE_BYTES: Buffer = Buffer.from('\n');

/**
 * Returns a function that corks `stream` until the end of the current tick. Called before each write, it turns
 * the many writes one socket read produces (one chunk often carries dozens of messages) into one `writev`
 * syscall, instead of one per message, without delaying anything: the cork is released on `process.nextTick`,
 * before the event loop polls again. Writes made while corked still count towards backpressure.
 */
export function tickCorker(stream: Writable | undefined): () => void {
  if (stream === undefined) return () => {};
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

/**
 * The TCP (or TLS) socket under a `ws` WebSocket, for corking. `ws` has no public cork API; `_socket` has been
 * its socket field for its whole life (v1 to v8). When it is missing, writes are simply not batched.
 */
export function underlyingSocket(socket: WebSocket): Writable | undefined {
  const candidate = (socket as unknown as { _socket?: unknown })._socket;
  if (
    candidate !== null &&
    typeof candidate === 'object' &&
    typeof (candidate as Writable).cork === 'function' &&
    typeof (candidate as Writable).uncork === 'function'
  ) {
    return candidate as Writable;
  }
  return undefined;
}
