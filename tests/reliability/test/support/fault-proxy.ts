// A TCP proxy (plain node:net) between a WebSocket client and server that injects network faults: connections cut
// at chosen byte offsets in either direction, cut all at once, new connections refused or held, one direction
// withheld. What the endpoints see is what a network failure looks like: the TCP stream ends or resets, no WebSocket
// close frame.
import { once } from 'node:events';
import net from 'node:net';

/** Client → server is `up`, server → client is `down`. */
export type Direction = 'up' | 'down';

/** Where to cut one proxied connection: after exactly `offset` bytes travelled in `direction`. */
export interface CutPlan {
  readonly direction: Direction;
  readonly offset: number;
}

/** One proxied connection (client side and server side). */
interface Link {
  readonly client: net.Socket;
  readonly server: net.Socket;
  readonly bytes: Record<Direction, number>;
  /** Decided on the first bytes: only WebSocket upgrades get plans (not the metadata fetch). */
  plan: CutPlan | undefined;
  planned: boolean;
  /** Index among the upgrades, once known. */
  upgrade: number | undefined;
  /** Directions whose bytes are held back instead of forwarded (see {@link FaultProxy.withhold}). */
  readonly withheld: Set<Direction>;
  cut: boolean;
}

/** A running fault proxy. */
export interface FaultProxy {
  /** The proxy's port on 127.0.0.1: point the client at it. */
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections that were cut (by plan or by {@link cutAll}). */
  readonly cuts: number;
  /** Proxied connections open now. */
  readonly open: number;
  /** Cuts every open connection now. */
  cutAll(): void;
  /** New connections are reset at once (the server looks unreachable) until called with false. */
  refuseNew(refuse: boolean): void;
  /**
   * New connections are accepted but not connected to the server until {@link release}: an attempt that hangs (the
   * client's open is pending). Resolves each held connection in arrival order.
   */
  holdNew(hold: boolean): void;
  /** Connects every held connection to the server. */
  release(): void;
  /** Connections waiting in {@link holdNew}. */
  readonly held: number;
  /** Stops forwarding `direction` on every open connection (bytes are held, as by a link that went dark). */
  withhold(direction: Direction): void;
  /** Bytes that reached the proxy in `direction` so far, over every connection (withheld ones included). */
  bytesSeen(direction: Direction): number;
  /** The first 64 KiB that travelled in `direction` on the `upgrade`-th WebSocket connection: what a tap sees. */
  transcript(upgrade: number, direction: Direction): Buffer;
  /** Resolves once `bytesSeen(direction)` reached `count`. */
  bytesReached(direction: Direction, count: number): Promise<void>;
  /** Resolves once `count` connections have been accepted in total. */
  acceptedReached(count: number): Promise<void>;
  /** Resolves once `count` cuts have happened in total. */
  cutsReached(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a fault proxy to `127.0.0.1:targetPort`. `plans[i]` is the cut plan of the i-th WebSocket upgrade through it
 * (0-based; plain HTTP requests such as the metadata fetch get none); upgrades past the list are not cut by plan. With
 * `planned` `event-streams`, the plans are for the SSE GETs of a Streamable HTTP client instead (POSTs get none).
 *
 * @example
 * ```ts
 * const proxy = await startFaultProxy(server.port, [{ direction: 'down', offset: 4_000 }]);
 * const mirror = startMirror(`ws://127.0.0.1:${proxy.port}/acp/ws`);
 * ```
 */
export async function startFaultProxy(
  targetPort: number,
  plans: readonly (CutPlan | undefined)[] = [],
  /** Which connections get the plans, by their first request: WebSocket upgrades, or SSE GETs (Streamable HTTP). */
  planned: 'upgrades' | 'event-streams' = 'upgrades',
): Promise<FaultProxy> {
  // An SSE GET of a connection (not the client's probe, which names no connection and is answered 400).
  const plannedRequest =
    planned === 'upgrades'
      ? (head: string) => /^upgrade:[ \t]*websocket/im.test(head)
      : (head: string) =>
          /^accept:[^\r\n]*text\/event-stream/im.test(head) && /^acp-connection-id:/im.test(head);
  const links = new Set<Link>();
  const heldSockets: net.Socket[] = [];
  let accepted = 0;
  let upgrades = 0;
  let cuts = 0;
  const seen: Record<Direction, number> = { up: 0, down: 0 };
  const transcripts = new Map<string, Buffer[]>();
  const TRANSCRIPT_BYTES = 64 * 1024;
  let refusing = false;
  let holding = false;
  const waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.check()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const waitUntil = (check: () => boolean) =>
    check() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ check, resolve }));

  const cut = (link: Link, partial?: { direction: Direction; bytes: Buffer }) => {
    if (link.cut) return;
    link.cut = true;
    cuts += 1;
    // The receiver of the partial chunk gets those bytes, then the stream ends; the other end is reset. Either way
    // no close frame reaches anyone: a network failure.
    const receiver = partial?.direction === 'up' ? link.server : link.client;
    const sender = receiver === link.client ? link.server : link.client;
    sender.resetAndDestroy();
    if (partial !== undefined && partial.bytes.length > 0) receiver.end(partial.bytes);
    else receiver.resetAndDestroy();
    setTimeout(() => receiver.destroy(), 1_000).unref();
    notify();
  };

  const record = (link: Link, direction: Direction, chunk: Buffer) => {
    seen[direction] += chunk.length;
    if (link.upgrade !== undefined) {
      const key = `${link.upgrade}:${direction}`;
      const pieces = transcripts.get(key) ?? [];
      if (pieces.reduce((sum, piece) => sum + piece.length, 0) < TRANSCRIPT_BYTES) pieces.push(chunk);
      transcripts.set(key, pieces);
    }
    notify();
  };

  const forward = (link: Link, direction: Direction, chunk: Buffer) => {
    if (link.cut) return;
    // An upgrade is a socket's first request; an SSE GET may follow others on a kept-alive socket (and is its last).
    if (!link.planned && direction === 'up') {
      link.planned = planned === 'upgrades';
      if (plannedRequest(chunk.toString('latin1'))) {
        link.planned = true;
        link.bytes.up = 0;
        link.bytes.down = 0;
        link.plan = plans[upgrades];
        link.upgrade = upgrades;
        upgrades += 1;
        if (link.plan?.offset === 0) {
          cut(link);
          return;
        }
      }
    }
    record(link, direction, chunk);
    const target = direction === 'up' ? link.server : link.client;
    const plan = link.plan;
    if (plan?.direction === direction && link.bytes[direction] + chunk.length >= plan.offset) {
      const keep = plan.offset - link.bytes[direction];
      link.bytes[direction] += keep;
      cut(link, { direction, bytes: chunk.subarray(0, keep) });
      return;
    }
    link.bytes[direction] += chunk.length;
    if (link.withheld.has(direction)) return;
    target.write(chunk);
  };

  const connect = (client: net.Socket) => {
    const server = net.connect(targetPort, '127.0.0.1');
    const link: Link = {
      client,
      server,
      bytes: { up: 0, down: 0 },
      plan: undefined,
      planned: false,
      upgrade: undefined,
      withheld: new Set(),
      cut: false,
    };
    links.add(link);
    for (const socket of [client, server]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        links.delete(link);
        // One side gone: so is the other (a clean end stays clean, as a real connection's would).
        client.destroy();
        server.destroy();
        notify();
      });
    }
    client.on('end', () => server.end());
    server.on('end', () => client.end());
    client.on('data', (chunk: Buffer) => forward(link, 'up', chunk));
    server.on('data', (chunk: Buffer) => forward(link, 'down', chunk));
  };

  const listener = net.createServer((client) => {
    accepted += 1;
    client.on('error', () => {});
    notify();
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    if (holding) {
      client.pause();
      heldSockets.push(client);
      return;
    }
    connect(client);
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as net.AddressInfo;

  return {
    port,
    get accepted() {
      return accepted;
    },
    get cuts() {
      return cuts;
    },
    get open() {
      return links.size;
    },
    get held() {
      return heldSockets.length;
    },
    cutAll() {
      for (const link of [...links]) cut(link);
    },
    refuseNew(refuse) {
      refusing = refuse;
    },
    holdNew(hold) {
      holding = hold;
    },
    release() {
      for (const client of heldSockets.splice(0)) {
        if (client.destroyed) continue;
        connect(client);
        client.resume();
      }
    },
    withhold(direction) {
      for (const link of links) link.withheld.add(direction);
    },
    bytesSeen: (direction) => seen[direction],
    transcript: (upgrade, direction) => Buffer.concat(transcripts.get(`${upgrade}:${direction}`) ?? []),
    bytesReached: (direction, count) => waitUntil(() => seen[direction] >= count),
    acceptedReached: (count) => waitUntil(() => accepted >= count),
    cutsReached: (count) => waitUntil(() => cuts >= count),
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.server.destroy();
      }
      for (const client of heldSockets.splice(0)) client.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
