// Hosts are child processes the bench driver starts over an IPC channel: they report where they listen and,
// on request, their heap after a full garbage collection (the process runs with --expose-gc).
import process from 'node:process';

/** Messages a host sends to the driver. */
export type HostReport =
  | { type: 'ready'; url: string }
  | { type: 'memory'; heapUsed: number; rss: number; external: number; arrayBuffers: number };

/** Messages the driver sends to a host. */
export type HostCommand = { type: 'memory' };

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('host must run with --expose-gc to report memory');
  // Two passes: the first can only schedule finalizers for objects the second one then frees.
  gc();
  gc();
}

/**
 * Tells the driver the host is ready and serves memory requests until the IPC channel closes.
 *
 * @example
 * ```ts
 * announceReady(server.url, () => server.close());
 * ```
 */
export function announceReady(url: string, close: () => Promise<void>): void {
  if (!process.send) throw new Error('host must be started with an IPC channel');
  process.on('message', (command: HostCommand) => {
    if (command.type !== 'memory') return;
    collectGarbage();
    const usage = process.memoryUsage();
    process.send?.({
      type: 'memory',
      heapUsed: usage.heapUsed,
      rss: usage.rss,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
    } satisfies HostReport);
  });
  // The driver disconnecting (or dying) ends the host: no orphaned servers.
  process.on('disconnect', () => {
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`host close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
  process.send({ type: 'ready', url } satisfies HostReport);
}
