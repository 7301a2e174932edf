// Unit tests of the HTTP connection cap.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HTTP_FIRST_HEAD_GRACE_MS } from '../shared/fixed-limits.js';
import { type CappedSocket, HttpConnectionCap } from './http-connection-cap.js';

let nextPort = 40_000;
function fakeSocket(remoteAddress = '127.0.0.1'): CappedSocket & { destroyed: boolean; bytesRead: number } {
  const emitter = new EventEmitter();
  const socket = {
    remoteAddress,
    remotePort: nextPort++,
    destroyed: false,
    bytesRead: 0,
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
    // Both served a request (so neither is a fresh connection waiting for its first head); first's ended last.
    cap.requestStarted(second);
    cap.requestFinished(second);
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

  describe('bodies in progress (issue 27)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('closes the oldest slow body to make room, never one being answered, and keeps a body arriving at a sensible rate', () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const evicted: string[] = [];
      const cap = new HttpConnectionCap(3, (_socket, why) => evicted.push(why));
      const [answered, slow, fast] = [fakeSocket('10.0.0.1'), fakeSocket('10.0.0.2'), fakeSocket('10.0.0.3')];
      for (const socket of [answered, slow, fast]) cap.admit(socket);
      cap.requestStarted(answered, { complete: true });
      cap.requestStarted(slow, { complete: false });
      cap.requestStarted(fast, { complete: false });
      vi.advanceTimersByTime(1_000);
      slow.bytesRead += 10;
      fast.bytesRead += 1024 * 1024;
      expect(cap.admit(fakeSocket('10.0.0.4'))).toBe(true);
      expect(slow.destroyed).toBe(true);
      expect(evicted).toEqual(['slow_body']);
      expect(answered.destroyed).toBe(false);
      expect(fast.destroyed).toBe(false);
    });

    it('closes slow bodies before a connection whose first head is still due, however young the slow bodies are', () => {
      // Under a churn of slow bodies that reopen at once, every slow body is younger than a legitimate connection
      // accepted a few milliseconds ago whose head the server has not read yet: age alone closed the legitimate one.
      vi.useFakeTimers({ toFake: ['performance'] });
      const evicted: string[] = [];
      const cap = new HttpConnectionCap(3, (_socket, why) => evicted.push(why), 8);
      const legitimate = fakeSocket('10.0.0.1');
      cap.admit(legitimate);
      vi.advanceTimersByTime(20);
      const attackers = [fakeSocket('10.0.0.2'), fakeSocket('10.0.0.2')];
      for (const socket of attackers) {
        cap.admit(socket);
        cap.requestStarted(socket, { complete: false });
      }
      vi.advanceTimersByTime(5);
      expect(cap.admit(fakeSocket('10.0.0.2'))).toBe(true);
      expect(legitimate.destroyed).toBe(false);
      expect(attackers.map((socket) => socket.destroyed)).toEqual([true, false]);
      expect(evicted).toEqual(['slow_body']);
    });

    it('treats a connection whose first head has not arrived within the grace as idle, oldest first', () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const evicted: string[] = [];
      const cap = new HttpConnectionCap(2, (_socket, why) => evicted.push(why));
      const [silent, slow] = [fakeSocket('10.0.0.1'), fakeSocket('10.0.0.2')];
      cap.admit(silent);
      vi.advanceTimersByTime(HTTP_FIRST_HEAD_GRACE_MS + 1);
      cap.admit(slow);
      cap.requestStarted(slow, { complete: false });
      vi.advanceTimersByTime(5);
      expect(cap.admit(fakeSocket('10.0.0.3'))).toBe(true);
      expect(silent.destroyed).toBe(true);
      expect(slow.destroyed).toBe(false);
      expect(evicted).toEqual(['idle']);
    });

    it('among connections whose first head is still due, closes one of the client that holds the most', () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const cap = new HttpConnectionCap(4, () => {});
      const legitimate = fakeSocket('10.0.0.1');
      cap.admit(legitimate);
      vi.advanceTimersByTime(5);
      const flood = [fakeSocket('10.0.0.2'), fakeSocket('10.0.0.2'), fakeSocket('10.0.0.2')];
      for (const socket of flood) cap.admit(socket);
      expect(cap.admit(fakeSocket('10.0.0.2'))).toBe(true);
      expect(legitimate.destroyed).toBe(false);
      expect(flood.map((socket) => socket.destroyed)).toEqual([true, false, false]);
    });

    it('caps the bodies one client has arriving: one more closes its oldest, not the newcomer nor another client', () => {
      const cap = new HttpConnectionCap(64, () => {}, 2);
      const other = fakeSocket('10.0.0.9');
      cap.admit(other);
      cap.requestStarted(other, { complete: false });
      const mine = [fakeSocket(), fakeSocket(), fakeSocket()];
      for (const socket of mine) {
        cap.admit(socket);
        cap.requestStarted(socket, { complete: false });
      }
      expect(mine.map((socket) => socket.destroyed)).toEqual([true, false, false]);
      expect(other.destroyed).toBe(false);
    });
  });
});
