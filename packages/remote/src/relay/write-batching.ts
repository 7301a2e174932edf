// Batching writes: one cork per event-loop turn, and the socket under a ws WebSocket.
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';

/** The newline that ends every NDJSON line, shared so no per-message buffer is made for it. */
export const NEWLINE_BYTES: Buffer = Buffer.from('\n');

/**
 * The most a corked batch of SSE events holds before it is written out (a stream's default high-water mark).
 * Measured with the streaming bench (an in-process agent, the SDK's HTTP client): uncapped, a turn's first update
 * left with its last; capped at 16 KiB, token-sized updates reached 1.06× the SDK's `AcpServer` (0.91× uncapped),
 * 16 KiB ones 1.23× (0.82×); 4 KiB and 64 KiB caps did no better. The relays' ports stay uncapped: their batches end
 * with the socket read that fed them, and the same cap there cost the chain ~15 % at 16 KiB.
 */
export const WRITE_BATCH_BYTES = 16 * 1024;

/**
 * Returns a function that corks `stream` until the end of the current tick. Called before each write, it turns
 * the many writes one socket read produces (one chunk often carries dozens of messages) into one `writev`
 * syscall, instead of one per message, without delaying anything: the cork is released on `process.nextTick`,
 * before the event loop polls again. Writes made while corked still count towards backpressure.
 *
 * Given the size of the write it precedes, it also releases the batch once it would pass `maxBatchBytes`: an
 * in-process agent whose every write resolves at once produces a whole turn in one chain of microtasks, which runs
 * to its end before any `nextTick`, so without a cap its first update would leave only with its last.
 */
export function tickCorker(
  stream: Writable | undefined,
  maxBatchBytes = Number.POSITIVE_INFINITY,
): (bytes?: number) => void {
  if (stream === undefined) return () => {};
  let corked = false;
  let batched = 0;
  const release = () => {
    // A release scheduled for an earlier batch may come after an early one: it then ends the current batch.
    if (!corked) return;
    corked = false;
    batched = 0;
    stream.uncork();
  };
  return (bytes = 0) => {
    if (corked && batched > 0 && batched + bytes > maxBatchBytes) release();
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(release);
    }
    batched += bytes;
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
