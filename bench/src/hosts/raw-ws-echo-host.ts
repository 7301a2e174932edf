// The raw WebSocket baseline hop: a bare `ws` server that sends every frame straight back. No framing checks,
// no JSON, no auth: the cost of one WebSocket hop and one event-loop turn.
import { WebSocketServer } from 'ws';
import { announceReady } from './host-ipc.js';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024 });
const sinkMarker = Buffer.from('"method":"_acpkit/bench_sink"');
server.on('connection', (socket) => {
  socket.on('message', (data: Buffer, isBinary) => {
    // The bench's sink request (the 16 MiB figure) gets a small acknowledgement: the big message travels one way.
    const head = data.subarray(0, 96);
    if (!isBinary && head.includes(sinkMarker)) {
      const id = /"id":(\d+)/.exec(head.toString('latin1'))?.[1] ?? 'null';
      socket.send(`{"jsonrpc":"2.0","id":${id},"result":{"receivedBytes":${data.length}}}`);
      return;
    }
    socket.send(data, { binary: isBinary });
  });
});
server.on('listening', () => {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('raw ws echo host has no TCP address');
  announceReady(`ws://127.0.0.1:${address.port}/`, async () => {
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
