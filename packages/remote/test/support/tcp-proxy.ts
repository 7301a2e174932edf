// A TCP proxy a test can cut: every connection through it can be dropped at once (a network drop), new ones get
// through again.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CuttableProxy {
  readonly port: number;
  /** Destroys every connection through the proxy now (both sides see a reset, no close handshake). */
  cut(): void;
  /** Resolves once `count` responses `HTTP/1.1 <status>` have passed towards the client (e.g. POSTs answered 202). */
  responsesPassed(status: number, count: number): Promise<void>;
  /** New connections go to `port` from now on (a server restarted elsewhere, another instance). */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startProxy(initialTarget: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  /** Responses seen towards the client, by status. */
  const statuses = new Map<number, number>();
  const waiters: Array<() => void> = [];
  let targetPort = initialTarget;
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    upstream.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g))
        statuses.set(Number(match[1]), (statuses.get(Number(match[1])) ?? 0) + 1);
      for (const waiter of waiters.splice(0)) waiter();
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    cut() {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    async responsesPassed(status, count) {
      while ((statuses.get(status) ?? 0) < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    retarget(port) {
      targetPort = port;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
