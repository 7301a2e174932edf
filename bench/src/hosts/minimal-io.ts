// The two halves of the minimal reference relay and mirror: lines to frames and frames to lines, each with its
// backpressure. Kept apart from @acpkit/remote on purpose: the references must not get faster or slower when our
// package changes.
import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';

const HIGH_WATER_BYTES = 1024 * 1024;
const NEWLINE = Buffer.from('\n');

/** Corks `stream` until the end of the current event-loop turn, once per turn. */
function tickCork(stream: Writable): () => void {
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
 * Sends every NDJSON line of `input` as one text frame (`indexOf` splitting, the frames of one read corked into one
 * write); `input` pauses while the socket's send buffer is over 1 MiB.
 */
export function linesToFrames(input: Readable, webSocket: WebSocket): void {
  const tcp = (webSocket as unknown as { _socket: Writable })._socket;
  let pieces: Buffer[] = [];
  input.on('data', (chunk: Buffer) => {
    tcp.cork();
    let start = 0;
    for (let index = chunk.indexOf(0x0a); index !== -1; index = chunk.indexOf(0x0a, start)) {
      const tail = chunk.subarray(start, index);
      webSocket.send(pieces.length === 0 ? tail : Buffer.concat([...pieces, tail]), { binary: false });
      pieces = [];
      start = index + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
    tcp.uncork();
    if (webSocket.bufferedAmount > HIGH_WATER_BYTES && !input.isPaused()) {
      input.pause();
      tcp.once('drain', () => input.resume());
    }
  });
}

/** Writes every frame of the socket as one line of `output` (corked per turn); the socket pauses while it is full. */
export function framesToLines(webSocket: WebSocket, output: Writable): void {
  const cork = tickCork(output);
  webSocket.on('message', (data: Buffer) => {
    cork();
    output.write(data);
    if (!output.write(NEWLINE) && !webSocket.isPaused) {
      webSocket.pause();
      output.once('drain', () => webSocket.resume());
    }
  });
}
