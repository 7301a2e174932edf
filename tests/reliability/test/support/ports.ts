import { once } from 'node:events';
import net from 'node:net';

/**
 * Asks the OS for a free loopback port by binding port 0, then releases it, for programs (nginx) that cannot
 * report the port they bound themselves.
 *
 * @example
 * ```ts
 * const port = await reserveFreePort();
 * ```
 */
export async function reserveFreePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no TCP address');
  const { port } = address;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Resolves once a TCP connection to `port` succeeds; rejects after `timeoutMs`. Used for processes that print
 * nothing when they are ready (nginx in the foreground).
 *
 * @example
 * ```ts
 * await waitForPort(8443, 5_000);
 * ```
 */
export async function waitForPort(
  port: number,
  timeoutMs: number,
  isAlive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (!isAlive()) throw new Error(`the process meant to listen on ${port} exited`);
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    // Polling a condition (not sleeping as synchronisation): the next attempt follows a short back-off.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
