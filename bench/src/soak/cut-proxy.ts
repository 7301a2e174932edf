// A TCP proxy in front of a server that can cut every connection through it at once: what a network failure looks
// like to both ends (the stream resets, no WebSocket close frame), so the soak exercises resume.
import { once } from 'node:events';
import net from 'node:net';

/** A running cut proxy on 127.0.0.1. */
export interface CutProxy {
  readonly port: number;
  /** Connections cut so far. */
  readonly cuts: number;
  /** Resets every open connection (both sides). */
  cutAll(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `127.0.0.1:targetPort`.
 *
 * @example
 * ```ts
 * const proxy = await startCutProxy(server.port);
 * proxy.cutAll();
 * ```
 */
export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  let cuts = 0;
  const listener = net.createServer((client) => {
    const server = net.connect(targetPort, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [client, server];
    pairs.add(pair);
    for (const socket of pair) {
      socket.on('error', () => {});
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        server.destroy();
      });
    }
    // pipe() carries backpressure both ways: the proxy holds at most a socket's buffer per direction.
    client.pipe(server);
    server.pipe(client);
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const cutAll = () => {
    for (const [client, server] of pairs) {
      cuts += 1;
      client.resetAndDestroy();
      server.resetAndDestroy();
    }
    pairs.clear();
  };
  return {
    port: (listener.address() as net.AddressInfo).port,
    get cuts() {
      return cuts;
    },
    cutAll,
    async close() {
      cutAll();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}
