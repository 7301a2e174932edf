// Reference point, not a product: the smallest WebSocket → stdio relay (one child per connection, frames forwarded
// as raw bytes, no parsing, no limits, no auth, no gating, no flow control). It shows what our relays' checks cost
// on top of the bare transport work, measured in the same run.
import { spawn } from 'node:child_process';
import { WebSocketServer } from 'ws';
import { LineSplitter } from '../transports.js';
import { announceReady } from './host-ipc.js';

const separator = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(separator + 1);
if (!command) throw new Error('usage: minimal-relay-host.ts -- <command> [args...]');

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024 });
server.on('connection', (socket) => {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const splitter = new LineSplitter((line) => socket.send(line));
  child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  child.stdin.on('error', () => {});
  socket.on('message', (data: Buffer) => {
    child.stdin.write(data);
    child.stdin.write('\n');
  });
  socket.on('close', () => child.stdin.end());
  child.on('exit', () => socket.close());
});
server.on('listening', () => {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('minimal relay has no TCP address');
  announceReady(`ws://127.0.0.1:${address.port}/`, async () => {
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
