// The resume link over real sockets: a WebSocketPort with a ResumeLink on one side, a raw `ws` peer on the other
// that the test drives frame by frame (its TCP stream paused and resumed by hand).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { HIGH_WATER_BYTES } from '../../relay/flow-control.js';
import { FrameLog } from '../../relay/frame-log.js';
import { silentLogger } from '../../shared/logger.js';
import { WebSocketPort } from '../websocket-port.js';
import { ResumeLink } from './resume-link.js';
import { encodeControlFrame, newResumeToken, RESUME_SUBPROTOCOL } from './resume-protocol.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The TCP stream under a `ws` socket (to stop and restart reading it, as a peer that reads nothing would). */
function tcpOf(socket: WebSocket): { pause(): void; resume(): void } {
  return (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
}

/**
 * A client port with resume (what the mirror and `connectAcp` run: it never pauses reading its server), connected to
 * a raw server socket that has sent its `welcome`.
 */
async function welcomedClientPort() {
  const server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    handleProtocols: () => RESUME_SUBPROTOCOL,
  });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[WebSocket]>;
  const socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, [
    RESUME_SUBPROTOCOL,
  ]);
  cleanups.push(() => socket.terminate());
  await once(socket, 'open');
  const [peer] = await accepted;
  cleanups.push(() => peer.terminate());
  const link = ResumeLink.forClient(64 * 1024 * 1024, 64 * 1024 * 1024, {
    detached: () => {},
    ended: () => {},
  });
  const port = new WebSocketPort(socket, {
    maxMessageBytes: 64 * 1024 * 1024,
    log: new FrameLog(silentLogger),
    peer: 'remote',
    pauseWhenFull: false,
    resume: link,
  });
  let handled = 0;
  const handledWaiters: Array<{ count: number; resolve: () => void }> = [];
  port.receive(() => {
    handled += 1;
    for (const waiter of handledWaiters.filter((candidate) => candidate.count <= handled)) {
      handledWaiters.splice(handledWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const handledReached = (count: number) =>
    new Promise<void>((resolve) => {
      if (handled >= count) resolve();
      else handledWaiters.push({ count, resolve });
    });
  peer.send(
    encodeControlFrame({
      type: 'welcome',
      token: newResumeToken(),
      resumed: false,
      received: 0,
      windowMs: 60_000,
      bufferBytes: 1024,
    }),
  );
  // The first data frame is handled after the welcome: the link is live from then on.
  peer.send('{"jsonrpc":"2.0","method":"_test/ready"}');
  await handledReached(1);
  expect(link.welcomed).toBeDefined();
  return { port, link, peer, handledReached };
}

describe('ResumeLink acknowledgements', () => {
  it('queues none behind a send queue over the high-water mark, and sends one covering them all once it drains', async () => {
    const { port, peer, handledReached } = await welcomedClientPort();
    // The peer stops reading: a large message stays queued on this side, over the mark.
    tcpOf(peer).pause();
    const received: Array<{ binary: boolean; text: string }> = [];
    peer.on('message', (data: Buffer, binary: boolean) =>
      received.push({ binary, text: binary ? data.toString('utf8') : '' }),
    );
    port.send(JSON.stringify({ jsonrpc: '2.0', method: '_test/big', params: 'x'.repeat(32 * 1024 * 1024) }));
    // The peer keeps sending (it only stopped reading): 640 frames, ten acknowledgements' worth.
    for (let index = 0; index < 640; index += 1) peer.send('{"jsonrpc":"2.0","method":"_test/tick"}');
    await handledReached(641);
    expect(port.bufferedAmount).toBeGreaterThan(HIGH_WATER_BYTES);
    // The peer reads again: everything queued arrives, then one cumulative acknowledgement.
    const acknowledged = new Promise<void>((resolve) =>
      peer.on('message', (data: Buffer, binary: boolean) => {
        if (binary && JSON.parse(data.toString('utf8')).received === 641) resolve();
      }),
    );
    tcpOf(peer).resume();
    await acknowledged;
    const acks = received.filter((frame) => frame.binary).map((frame) => JSON.parse(frame.text));
    expect(acks).toEqual([{ type: 'ack', received: 641 }]);
  }, 60_000);
});
