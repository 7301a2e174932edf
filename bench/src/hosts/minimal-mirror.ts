// Reference point, not a product: the smallest stdio → WebSocket mirror (lines out as text frames, frames back as
// lines; no parsing, no in-flight tracking, no pings, no flow control). Argument: the ws:// URL.
import process from 'node:process';
import WebSocket from 'ws';
import { LineSplitter } from '../transports.js';

const socket = new WebSocket(process.argv[2]!, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
socket.on('open', () => {
  const splitter = new LineSplitter((line) => socket.send(line));
  process.stdin.on('data', (chunk: Buffer) => splitter.push(chunk));
  process.stdin.on('end', () => socket.close());
});
socket.on('message', (data: Buffer) => {
  process.stdout.write(data);
  process.stdout.write('\n');
});
socket.on('close', () => process.exit(0));
