// The cap on plain HTTP connections a server holds: the oldest idle one makes room for a new one.
/** What the cap needs of a socket (a `net.Socket`; TLS sockets share the raw socket's address and port). */
export interface CappedSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  destroy(): void;
  once(event: 'close', listener: () => void): unknown;
}

interface Tracked {
  readonly socket: CappedSocket;
  requestsInProgress: number;
}

function keyOf(socket: CappedSocket): string | undefined {
  if (socket.remoteAddress === undefined || socket.remotePort === undefined) return undefined;
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

/**
 * Caps the plain HTTP connections a server holds (accepted, not upgraded to WebSocket). At the cap, the oldest
 * connection with no request in progress (idle keep-alive, or a request head still arriving) is closed to make room;
 * when every one has a request in progress, the new connection is refused instead. So a flood of idle sockets cannot
 * exhaust file descriptors, and a health check always finds a slot.
 */
export class HttpConnectionCap {
  // Insertion order is age: the first idle entry is the oldest idle connection.
  private readonly connections = new Map<string, Tracked>();

  constructor(
    private readonly max: number,
    private readonly onEvicted: (socket: CappedSocket) => void,
  ) {}

  /** Number of tracked connections. */
  get size(): number {
    return this.connections.size;
  }

  /** Registers a new connection; false when it must be refused (every tracked one is busy). */
  admit(socket: CappedSocket): boolean {
    const key = keyOf(socket);
    if (key === undefined) return true;
    if (this.connections.size >= this.max) {
      const idle = [...this.connections.entries()].find(([, tracked]) => tracked.requestsInProgress === 0);
      if (idle === undefined) return false;
      this.connections.delete(idle[0]);
      idle[1].socket.destroy();
      this.onEvicted(idle[1].socket);
    }
    this.connections.set(key, { socket, requestsInProgress: 0 });
    socket.once('close', () => {
      if (this.connections.get(key)?.socket === socket) this.connections.delete(key);
    });
    return true;
  }

  /** A request head arrived on the connection: it is not idle until its response ends. */
  requestStarted(socket: CappedSocket): void {
    const tracked = this.find(socket);
    if (tracked) tracked.requestsInProgress += 1;
  }

  /** A response ended: the connection is idle again and becomes the youngest. */
  requestFinished(socket: CappedSocket): void {
    const key = keyOf(socket);
    const tracked = key === undefined ? undefined : this.connections.get(key);
    if (key === undefined || tracked === undefined) return;
    tracked.requestsInProgress = Math.max(0, tracked.requestsInProgress - 1);
    this.connections.delete(key);
    this.connections.set(key, tracked);
  }

  /** The connection asked for a WebSocket upgrade: from now on the WebSocket limits govern it. */
  upgraded(socket: CappedSocket): void {
    const key = keyOf(socket);
    if (key !== undefined) this.connections.delete(key);
  }

  private find(socket: CappedSocket): Tracked | undefined {
    const key = keyOf(socket);
    return key === undefined ? undefined : this.connections.get(key);
  }
}
