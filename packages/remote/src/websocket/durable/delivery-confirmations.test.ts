// DeliveryConfirmations: which sent messages a pong (or an answer) confirmed, and what a drop leaves as cut.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { DeliveryConfirmations } from './delivery-confirmations.js';

/** A socket that records its pings and lets the test answer them. */
function fakeSocket() {
  const emitter = new EventEmitter();
  const pings: string[] = [];
  const socket = Object.assign(emitter, {
    OPEN: 1,
    readyState: 1,
    ping: (data: Buffer) => pings.push(data.toString()),
  });
  return {
    socket: socket as unknown as WebSocket,
    pings,
    pong: (data: string) => emitter.emit('pong', Buffer.from(data)),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('DeliveryConfirmations', () => {
  it('pings once per turn after messages; the pong confirms every message sent before its ping', async () => {
    const { socket, pings, pong } = fakeSocket();
    const confirmations = new DeliveryConfirmations(1 << 20);
    confirmations.bind(socket);
    confirmations.sent('a', { kind: 'notification' });
    confirmations.sent('b', { kind: 'request', id: '1' });
    await turn();
    expect(pings).toEqual(['acpkit-sent:2']);
    confirmations.sent('c', { kind: 'notification' });
    await turn();
    // One ping outstanding at a time.
    expect(pings).toHaveLength(1);
    pong('unrelated');
    expect(confirmations.unconfirmed).toBe(3);
    pong('acpkit-sent:2');
    expect(confirmations.unconfirmed).toBe(1);
    await turn();
    expect(pings).toEqual(['acpkit-sent:2', 'acpkit-sent:3']);
    expect(confirmations.takeCut().map((message) => message.payload)).toEqual(['c']);
  });

  it('an answer confirms its request; after a drop what is left is the cut, in order', async () => {
    const { socket } = fakeSocket();
    const confirmations = new DeliveryConfirmations(1 << 20);
    confirmations.bind(socket);
    confirmations.sent('p', { kind: 'request', id: '5' });
    confirmations.sent('q', { kind: 'request', id: '6' });
    confirmations.sent('n', { kind: 'notification' });
    confirmations.answered('5');
    confirmations.unbind();
    expect(confirmations.takeCut().map((message) => message.payload)).toEqual(['q', 'n']);
    expect(confirmations.unconfirmed).toBe(0);
  });

  it('keeps at most its bound: the oldest are let go', () => {
    const confirmations = new DeliveryConfirmations(4);
    for (const payload of ['aa', 'bb', 'cc']) confirmations.sent(payload, { kind: 'notification' });
    expect(confirmations.takeCut().map((message) => message.payload)).toEqual(['bb', 'cc']);
  });
});
