// Reference point, not a product: the fastest minimal stdio → WebSocket mirror we can write (lines out as text
// frames with `indexOf` splitting, frames back as lines, writes corked per event-loop turn, backpressure both ways,
// bearer token sent). No frame checks, no in-flight tracking, no pings. Argument: the ws:// URL.
import process from 'node:process';
import WebSocket from 'ws';
import { benchToken } from './bench-token.js';
import { tcpSocketOf, tickCork } from './minimal-io.js';

const HIGH_WATER_BYTES = 1024 * 1024;
const NEWLINE = Buffer.from('\n');
const socket = new WebSocket(process.argv[2]!, {
  perMessageDeflate: false,
  maxPayload: 64 << 20,
  headers: { Authorization: `Bearer ${benchToken}` },
});
const corkStdout = tickCork(process.stdout);
socket.on('message', (data: Buffer) => {
  corkStdout();
  process.stdout.write(data);
  if (!process.stdout.write(NEWLINE) && !socket.isPaused) {
    socket.pause();
    process.stdout.once('drain', () => socket.resume());
  }
});
socket.on('open', () => {
  const tcp = tcpSocketOf(socket);
  let pieces: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => {
    tcp.cork();
    let start = 0;
    for (let index = chunk.indexOf(0x0a); index !== -1; index = chunk.indexOf(0x0a, start)) {
      const tail = chunk.subarray(start, index);
      socket.send(pieces.length === 0 ? tail : Buffer.concat([...pieces, tail]), { binary: false });
      pieces = [];
      start = index + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
    tcp.uncork();
    if (socket.bufferedAmount > HIGH_WATER_BYTES && !process.stdin.isPaused()) {
      process.stdin.pause();
      tcp.once('drain', () => process.stdin.resume());
    }
  });
  process.stdin.on('end', () => socket.close());
});
socket.on('close', () => process.exit(0));
