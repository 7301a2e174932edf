import { once } from 'node:events';
import type net from 'node:net';
import WebSocket from 'ws';

/**
 * The TCP socket under a `ws` client (`ws` has no public accessor; `_socket` has been its field from v1 to v8):
 * pausing it stops reading without telling the server anything, as a peer that stopped reading does.
 */
export function tcpSocket(socket: WebSocket): net.Socket {
  return (socket as unknown as { _socket: net.Socket })._socket;
}

/**
 * A `ws` client for the suite: records close code and reason, and can do one JSON-RPC round trip by id while
 * ignoring unrelated frames (replies to garbage sent before).
 *
 * @example
 * ```ts
 * const peer = await openPeer(url);
 * await peer.roundTrip('_test/echo', { n: 1 });
 * ```
 */
export async function openPeer(url: string, options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(url, { perMessageDeflate: false, ...options });
  const waiting = new Map<
    string,
    { resolve: (frame: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  let closeInfo: { code: number; reason: string } | undefined;
  socket.on('error', () => {});
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) return;
    let frame: unknown;
    try {
      frame = JSON.parse(data.toString('utf8'));
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return;
    const id = (frame as { id?: unknown }).id;
    if (typeof id === 'string' && waiting.has(id)) {
      waiting.get(id)!.resolve(frame as Record<string, unknown>);
      waiting.delete(id);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      closeInfo = { code, reason: reason.toString() };
      for (const [method, pending] of waiting) {
        pending.reject(
          new Error(`socket closed (${code} ${closeInfo.reason}) before the reply to ${method}`),
        );
      }
      waiting.clear();
      resolve(closeInfo);
    });
  });
  await once(socket, 'open');
  let next = 0;
  return {
    socket,
    closed,
    get closeInfo() {
      return closeInfo;
    },
    get isOpen() {
      return socket.readyState === WebSocket.OPEN;
    },
    /** Sends a request with a fresh string id and resolves with its reply; rejects on close or after `timeoutMs`. */
    roundTrip(method: string, params: unknown, timeoutMs = 5_000): Promise<Record<string, unknown>> {
      next += 1;
      const id = `probe-${next}`;
      return new Promise((resolve, reject) => {
        if (closeInfo) {
          reject(
            new Error(`socket closed (${closeInfo.code} ${closeInfo.reason}) before ${method} was sent`),
          );
          return;
        }
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`no reply to ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, {
          resolve: (frame) => {
            clearTimeout(timer);
            resolve(frame);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close(1000, 'test done');
      const timer = setTimeout(() => socket.terminate(), 2_000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/** An open peer from {@link openPeer}. */
export type Peer = Awaited<ReturnType<typeof openPeer>>;
