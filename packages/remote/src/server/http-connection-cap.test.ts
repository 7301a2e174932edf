// Unit tests of the HTTP connection cap.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type CappedSocket, HttpConnectionCap } from './http-connection-cap.js';

let nextPort = 40_000;
function fakeSocket(): CappedSocket & { destroyed: boolean } {
  const emitter = new EventEmitter();
  const socket = {
    remoteAddress: '127.0.0.1',
    remotePort: nextPort++,
    destroyed: false,
    destroy() {
      socket.destroyed = true;
      emitter.emit('close');
    },
    once(event: 'close', listener: () => void) {
      emitter.once(event, listener);
      return socket;
    },
  };
  return socket;
}

describe('HttpConnectionCap', () => {
  it('closes the oldest idle connection to make room for a new one', () => {
    const evicted: CappedSocket[] = [];
    const cap = new HttpConnectionCap(2, (socket) => evicted.push(socket));
    const [first, second, third] = [fakeSocket(), fakeSocket(), fakeSocket()];
    expect(cap.admit(first)).toBe(true);
    expect(cap.admit(second)).toBe(true);
    expect(cap.admit(third)).toBe(true);
    expect(evicted).toEqual([first]);
    expect(first.destroyed).toBe(true);
    expect(cap.size).toBe(2);
  });

  it('never closes a connection with a request in progress, and refuses the newcomer when all are busy', () => {
    const cap = new HttpConnectionCap(2, () => {});
    const [first, second, third] = [fakeSocket(), fakeSocket(), fakeSocket()];
    cap.admit(first);
    cap.admit(second);
    cap.requestStarted(first);
    expect(cap.admit(third)).toBe(true);
    expect(first.destroyed).toBe(false);
    expect(second.destroyed).toBe(true);
    cap.requestStarted(third);
    expect(cap.admit(fakeSocket())).toBe(false);
    expect(cap.size).toBe(2);
  });

  it('makes a connection the youngest when its response ends, and forgets upgraded and closed ones', () => {
    const cap = new HttpConnectionCap(2, () => {});
    const [first, second] = [fakeSocket(), fakeSocket()];
    cap.admit(first);
    cap.admit(second);
    cap.requestStarted(first);
    cap.requestFinished(first);
    cap.admit(fakeSocket());
    expect(second.destroyed).toBe(true);
    expect(first.destroyed).toBe(false);
    cap.upgraded(first);
    expect(cap.size).toBe(1);
    const closing = fakeSocket();
    cap.admit(closing);
    closing.destroy();
    expect(cap.size).toBe(1);
  });
});
