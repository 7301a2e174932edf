// Reference point, not a product: the fastest minimal stdio → WebSocket mirror we can write (lines out as text
// frames with `indexOf` splitting, frames back as lines, writes corked per event-loop turn, backpressure both ways,
// bearer token sent). No frame checks, no in-flight tracking, no pings. Argument: the ws:// URL.
import process from 'node:process';
import WebSocket from 'ws';
import { benchToken } from './bench-token.js';
import { framesToLines, linesToFrames } from './minimal-io.js';

const socket = new WebSocket(process.argv[2]!, {
  perMessageDeflate: false,
  maxPayload: 64 << 20,
  headers: { Authorization: `Bearer ${benchToken}` },
});
framesToLines(socket, process.stdout);
socket.on('open', () => {
  linesToFrames(process.stdin, socket);
  process.stdin.on('end', () => socket.close());
});
socket.on('close', () => process.exit(0));
