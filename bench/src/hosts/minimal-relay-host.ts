// Reference point, not a product: the fastest minimal WebSocket → stdio relay we can write, measured in the same run
// as ours. One child per connection, bearer token checked before the upgrade, frames ↔ lines with `indexOf`
// splitting, writes corked per event-loop turn (one writev for many messages), and backpressure both ways (the
// socket is paused while the child's stdin is full, the child's stdout while the socket's send buffer is over
// 1 MiB). No frame checks, no size limit beyond ws's, no heartbeat: everything our relay adds on top is what the
// ratio against this host measures.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';
import { framesToLines, linesToFrames } from './minimal-io.js';

const separator = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(separator + 1);
if (!command) throw new Error('usage: minimal-relay-host.ts -- <command> [args...]');

const webSocketServer = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  maxPayload: 64 << 20,
});
const server = createServer();
server.on('upgrade', (request, socket: Duplex, head) => {
  if (request.headers.authorization !== `Bearer ${benchToken}`) {
    socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.on('error', () => {});
    linesToFrames(child.stdout, webSocket);
    framesToLines(webSocket, child.stdin);
    webSocket.on('close', () => child.stdin.end());
    child.on('exit', () => webSocket.close());
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('minimal relay has no TCP address');
  announceReady(`ws://127.0.0.1:${address.port}/`, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
