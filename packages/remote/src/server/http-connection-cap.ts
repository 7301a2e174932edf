// The cap on plain HTTP connections a server holds: the connection that holds its slot longest without earning it
// (idle, a head still arriving, a body arriving below the minimum rate) makes room for a new one.
import { HTTP_BODY_MIN_BYTES_PER_SECOND, HTTP_FIRST_HEAD_GRACE_MS } from '../shared/fixed-limits.js';

/** What the cap needs of a socket (a `net.Socket`; TLS sockets share the raw socket's address and port). */
export interface CappedSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  /** Bytes received so far (a body's progress is read from it). */
  readonly bytesRead?: number;
  destroy(): void;
  once(event: 'close', listener: () => void): unknown;
}

/** What the cap reads of a request: whether its body has arrived whole (`IncomingMessage.complete`). */
export interface CappedRequest {
  readonly complete: boolean;
}

/** Why a connection was closed to make room. */
export type EvictionReason = 'idle' | 'slow_body' | 'client_bodies';

interface Tracked {
  readonly socket: CappedSocket;
  readonly address: string;
  requestsInProgress: number;
  /** The latest request started on the connection, while its body may still be arriving. */
  request: CappedRequest | undefined;
  /** When the connection was admitted, went idle, or its latest request started (ms, `performance.now()`). */
  since: number;
  /** `socket.bytesRead` when its latest request started. */
  bytesAtStart: number;
  /** Whether a request head has arrived on it yet (before it, the connection is only idle after a grace). */
  headSeen: boolean;
}

function keyOf(socket: CappedSocket): string | undefined {
  if (socket.remoteAddress === undefined || socket.remotePort === undefined) return undefined;
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

/**
 * Caps the plain HTTP connections a server holds (accepted, not upgraded to WebSocket, not streaming events). At the
 * cap, a connection is closed to make room for the new one: the oldest of those that hold a slot without earning
 * it (idle keep-alive, a first head still due after the grace, a request body arriving slower than
 * `HTTP_BODY_MIN_BYTES_PER_SECOND`), else the oldest whose body still arrives, else, among connections still
 * within `HTTP_FIRST_HEAD_GRACE_MS` of their accept with no head yet, the oldest of the client holding the most
 * connections (so a churn of slow bodies, all younger than it, or a flood from another address never closes a
 * client between its connect and its head); a connection whose request has arrived whole (being answered) is never
 * closed. Only when every connection is being answered is the newcomer refused. One client (remote address) has at
 * most `maxBodiesPerClient` bodies arriving at once: one more closes its oldest, slowest first. So a flood of idle sockets or slow bodies cannot exhaust file descriptors or lock out
 * `/healthz`, `/readyz` or another client: a request that arrives promptly always finds a slot.
 *
 * @example
 * ```ts
 * const cap = new HttpConnectionCap(64, (socket, why) => log(why));
 * server.on('connection', (socket) => cap.admit(socket) || socket.destroy());
 * ```
 */
export class HttpConnectionCap {
  // Insertion order is age: the first idle entry is the oldest idle connection.
  private readonly connections = new Map<string, Tracked>();

  constructor(
    private readonly max: number,
    private readonly onEvicted: (socket: CappedSocket, why: EvictionReason) => void,
    /** Bodies one remote address may have arriving at once (default: a quarter of the cap, at least 1). */
    readonly maxBodiesPerClient = Math.max(1, Math.floor(max / 4)),
  ) {}

  /** Number of tracked connections. */
  get size(): number {
    return this.connections.size;
  }

  /** Registers a new connection; false when it must be refused (every tracked one is being answered). */
  admit(socket: CappedSocket): boolean {
    const key = keyOf(socket);
    if (key === undefined) return true;
    if (this.connections.size >= this.max) {
      const victim = this.victim(performance.now(), () => true);
      if (victim === undefined) return false;
      this.evict(victim.tracked, victim.why);
    }
    this.connections.set(key, {
      socket,
      address: socket.remoteAddress ?? '',
      requestsInProgress: 0,
      request: undefined,
      since: performance.now(),
      bytesAtStart: 0,
      headSeen: false,
    });
    socket.once('close', () => {
      if (this.connections.get(key)?.socket === socket) this.connections.delete(key);
    });
    return true;
  }

  /**
   * A request head arrived on the connection: it is not idle until its response ends. While `request` has not
   * arrived whole, its body counts against the client's bound and its rate decides whether it may be closed.
   */
  requestStarted(socket: CappedSocket, request?: CappedRequest): void {
    const tracked = this.find(socket);
    if (tracked === undefined) return;
    tracked.requestsInProgress += 1;
    tracked.headSeen = true;
    tracked.request = request;
    tracked.since = performance.now();
    tracked.bytesAtStart = socket.bytesRead ?? 0;
    if (request === undefined || request.complete) return;
    let bodies = 0;
    for (const other of this.connections.values())
      if (other.address === tracked.address && this.bodyArriving(other)) bodies += 1;
    if (bodies <= this.maxBodiesPerClient) return;
    const victim = this.victim(
      tracked.since,
      (other) => other !== tracked && other.address === tracked.address && this.bodyArriving(other),
    );
    if (victim !== undefined) this.evict(victim.tracked, 'client_bodies');
  }

  /** A response ended: the connection is idle again and becomes the youngest. */
  requestFinished(socket: CappedSocket): void {
    const key = keyOf(socket);
    const tracked = key === undefined ? undefined : this.connections.get(key);
    if (key === undefined || tracked === undefined) return;
    tracked.requestsInProgress = Math.max(0, tracked.requestsInProgress - 1);
    tracked.request = undefined;
    tracked.since = performance.now();
    this.connections.delete(key);
    this.connections.set(key, tracked);
  }

  /**
   * The connection left plain HTTP (a WebSocket upgrade, an event stream): from now on the WebSocket's or the event
   * streams' limits govern it.
   */
  upgraded(socket: CappedSocket): void {
    const key = keyOf(socket);
    if (key !== undefined) this.connections.delete(key);
  }

  private bodyArriving(tracked: Tracked): boolean {
    return tracked.requestsInProgress > 0 && tracked.request !== undefined && !tracked.request.complete;
  }

  /**
   * The connection to close among those `eligible`: the oldest that holds its slot without earning it, else the
   * oldest whose body arrives at a sensible rate, else the oldest still waiting for its first head within the grace;
   * never one being answered.
   */
  private victim(
    now: number,
    eligible: (tracked: Tracked) => boolean,
  ): { tracked: Tracked; why: EvictionReason } | undefined {
    let unearned: { tracked: Tracked; why: EvictionReason } | undefined;
    let arriving: Tracked | undefined;
    const fresh: Tracked[] = [];
    for (const tracked of this.connections.values()) {
      if (!eligible(tracked)) continue;
      let why: EvictionReason | undefined;
      if (tracked.requestsInProgress === 0) {
        if (tracked.headSeen || now - tracked.since > HTTP_FIRST_HEAD_GRACE_MS) why = 'idle';
        else fresh.push(tracked);
      } else if (this.bodyArriving(tracked)) {
        const elapsedMs = Math.max(1, now - tracked.since);
        const received = (tracked.socket.bytesRead ?? 0) - tracked.bytesAtStart;
        if ((received * 1000) / elapsedMs < HTTP_BODY_MIN_BYTES_PER_SECOND) why = 'slow_body';
        else if (arriving === undefined || tracked.since < arriving.since) arriving = tracked;
      }
      if (why !== undefined && (unearned === undefined || tracked.since < unearned.tracked.since))
        unearned = { tracked, why };
    }
    if (unearned !== undefined) return unearned;
    if (arriving !== undefined) return { tracked: arriving, why: 'slow_body' };
    const waiting = this.freshOfBusiestClient(fresh);
    return waiting === undefined ? undefined : { tracked: waiting, why: 'idle' };
  }

  /**
   * Among connections still waiting for their first head, the oldest of the client (remote address) that holds the
   * most connections: the server cannot tell a flood from a client before a head arrives, but a flooder holds more
   * slots than anyone, so a client that connects while another floods keeps its slot.
   */
  private freshOfBusiestClient(fresh: readonly Tracked[]): Tracked | undefined {
    if (fresh.length <= 1) return fresh[0];
    const held = new Map<string, number>();
    for (const tracked of this.connections.values())
      held.set(tracked.address, (held.get(tracked.address) ?? 0) + 1);
    let chosen: Tracked | undefined;
    for (const tracked of fresh) {
      if (chosen === undefined) {
        chosen = tracked;
        continue;
      }
      const more = (held.get(tracked.address) ?? 0) - (held.get(chosen.address) ?? 0);
      if (more > 0 || (more === 0 && tracked.since < chosen.since)) chosen = tracked;
    }
    return chosen;
  }

  private evict(tracked: Tracked, why: EvictionReason): void {
    const key = keyOf(tracked.socket);
    if (key !== undefined) this.connections.delete(key);
    tracked.socket.destroy();
    this.onEvicted(tracked.socket, why);
  }

  private find(socket: CappedSocket): Tracked | undefined {
    const key = keyOf(socket);
    return key === undefined ? undefined : this.connections.get(key);
  }
}
