import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseReceiver as Receiver } from '../../../test/support/sse-receiver.js';
import { HIGH_WATER_BYTES } from '../../relay/flow-control.js';
import { EVENT_OVERHEAD_BYTES, RetentionBudget, SseStream, type SseStreamOwner } from './sse-stream.js';

function owner(
  maxBytes = 1 << 20,
  windowMs = 60_000,
  messageBytes = 0,
): SseStreamOwner & { progress: number } {
  const state = {
    retention: new RetentionBudget(maxBytes, windowMs, messageBytes),
    keepAliveMs: 25_000,
    closeFlushMs: 10_000,
    progress: 0,
    progressed() {
      state.progress += 1;
    },
    receiverChanged() {},
    streamEnded() {},
  };
  return state;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** The ids of the events written (the id-only block that primes a fresh receiver is not an event). */
const ids = (text: string) => [...text.matchAll(/^id: (\d+)\ndata: /gm)].map((match) => Number(match[1]));

afterEach(() => {
  vi.useRealTimers();
});

describe('SseStream', () => {
  it('queues events until a receiver attaches, then writes them numbered, and later ones as they come', async () => {
    const stream = new SseStream('connection', owner());
    stream.push('{"a":1}');
    stream.push(Buffer.from('{"b":2}'));
    const receiver = new Receiver();
    expect(stream.attach(receiver, undefined)).toEqual({ ok: true });
    stream.push('{"c":3}');
    await tick();
    // A fresh receiver first gets the stream's position (an id-only block: no event), then the events.
    expect(receiver.text).toBe(
      'id: 0\n\nid: 1\ndata: {"a":1}\n\nid: 2\ndata: {"b":2}\n\nid: 3\ndata: {"c":3}\n\n',
    );
    expect(stream.pendingBytes).toBe(0);
  });

  it('stops writing past the high-water mark of a receiver that does not read, and goes on once it drains', async () => {
    const state = owner(64 << 20);
    const stream = new SseStream('s1', state);
    const receiver = new Receiver(true);
    stream.attach(receiver, undefined);
    const payload = 'x'.repeat(256 * 1024);
    for (let index = 0; index < 12; index += 1) stream.push(payload);
    await tick();
    const written = ids(receiver.text).length;
    expect(written).toBeLessThan(12);
    expect(stream.pendingBytes).toBeGreaterThan(HIGH_WATER_BYTES);
    receiver.release();
    await tick();
    await tick();
    expect(ids(receiver.text)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    expect(stream.pendingBytes).toBe(0);
  });

  it('sends a reconnecting receiver every event after its Last-Event-ID, then the live ones', async () => {
    const stream = new SseStream('connection', owner());
    const first = new Receiver();
    stream.attach(first, undefined);
    for (const n of [1, 2, 3]) stream.push(`{"n":${n}}`);
    const second = new Receiver();
    expect(stream.attach(second, 1)).toEqual({ ok: true });
    stream.push('{"n":4}');
    await tick();
    expect(ids(second.text)).toEqual([2, 3, 4]);
    expect(first.writableEnded).toBe(true);
    expect(first.text).toContain(': replaced by a newer request for this stream\n\n');
  });

  it('refuses a Last-Event-ID whose successors were evicted (overflow) or that was never sent (ahead)', () => {
    const stream = new SseStream('connection', owner(40));
    stream.attach(new Receiver(), undefined);
    for (const n of [1, 2, 3]) stream.push(`{"n":${n}}`);
    expect(stream.attach(new Receiver(), 0)).toEqual({ ok: false, gap: 'overflow' });
    expect(stream.attach(new Receiver(), 9)).toEqual({ ok: false, gap: 'ahead' });
    expect(stream.attach(new Receiver(), 3)).toEqual({ ok: true });
  });

  it('keeps nothing with a window of 0, and nothing older than the window', () => {
    vi.useFakeTimers();
    const none = new SseStream('connection', owner(1 << 20, 0));
    none.attach(new Receiver(), undefined);
    none.push('{}');
    none.push('{}');
    expect(none.attach(new Receiver(), 1)).toEqual({ ok: false, gap: 'overflow' });

    const state = owner(1 << 20, 1_000);
    const aged = new SseStream('connection', state);
    aged.attach(new Receiver(), undefined);
    aged.push('{}');
    vi.advanceTimersByTime(1_500);
    aged.push('{}');
    expect(aged.attach(new Receiver(), 0)).toEqual({ ok: false, gap: 'overflow' });
    expect(aged.attach(new Receiver(), 1)).toEqual({ ok: true });
    expect(state.retention.retainedBytes).toBeGreaterThan(0);
  });

  it('writes a keep-alive comment each interval while a receiver is attached', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = new SseStream('connection', owner());
    const receiver = new Receiver();
    stream.attach(receiver, undefined);
    vi.advanceTimersByTime(50_000);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(receiver.text).toBe('id: 0\n\n:\n\n:\n\n');
  });

  it('finishes after its queued events: the closing comment comes last, once a receiver has read them', async () => {
    const stream = new SseStream('s', owner());
    stream.push('{"last":1}');
    stream.finish('closed 4000 agent process exited with code 0');
    stream.push('{"dropped":true}');
    expect(stream.isEnded).toBe(false);
    const receiver = new Receiver();
    stream.attach(receiver, undefined);
    await tick();
    expect(receiver.text).toBe(
      'id: 0\n\nid: 1\ndata: {"last":1}\n\n: closed 4000 agent process exited with code 0\n\n',
    );
    expect(stream.isEnded).toBe(true);
  });

  it('ends with a one-line closing comment and keeps nothing', () => {
    const state = owner();
    const stream = new SseStream('connection', state);
    const receiver = new Receiver();
    stream.attach(receiver, undefined);
    stream.push('{}');
    stream.end('closed 4000 agent process exited\nwith code 0');
    stream.push('{}');
    expect(receiver.text).toMatch(/: closed 4000 agent process exited with code 0\n\n$/);
    expect(receiver.writableEnded).toBe(true);
    expect(state.retention.retainedBytes).toBe(0);
  });

  it('destroys a taken-over receiver that cannot take the closing comment, at once (issue 27)', async () => {
    const stream = new SseStream('connection', owner(64 << 20));
    const stalled = new Receiver(true);
    stream.attach(stalled, undefined);
    for (let index = 0; index < 8; index += 1) stream.push('x'.repeat(64 * 1024));
    await tick();
    expect(stream.attach(new Receiver(), 0)).toEqual({ ok: true });
    expect(stalled.destroyed).toBe(true);
  });

  it('destroys an ended receiver that has not flushed within closeFlushMs, not before (issue 27)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stream = new SseStream('connection', owner());
    const stalled = new Receiver(true);
    stream.attach(stalled, undefined);
    stream.push('x'.repeat(64 * 1024));
    await tick();
    stream.end('closed 1000 the client ended the connection (DELETE)');
    expect(stalled.writableEnded).toBe(true);
    vi.advanceTimersByTime(9_999);
    expect(stalled.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(stalled.destroyed).toBe(true);

    const reading = new Receiver();
    const other = new SseStream('s', owner());
    other.attach(reading, undefined);
    other.push('{}');
    await tick();
    other.end('closed 1000');
    await tick();
    vi.advanceTimersByTime(10_000);
    expect(reading.writableFinished).toBe(true);
    expect(reading.text).toMatch(/: closed 1000\n\n$/);
  });

  it('keeps the limit under a flood of small events; only the newest event may use the room for one message (issue 32)', () => {
    const limit = 4_096;
    const state = owner(limit + 64 * 1024, 60_000, 64 * 1024);
    const stream = new SseStream('connection', state);
    stream.attach(new Receiver(), undefined);
    for (let index = 0; index < 200; index += 1) stream.push('{"jsonrpc":"2.0","method":"x"}');
    const small = 'id: 200\ndata: {"jsonrpc":"2.0","method":"x"}\n\n'.length + EVENT_OVERHEAD_BYTES;
    expect(state.retention.retainedBytes).toBeLessThanOrEqual(limit + small);
    // A large event is kept whole with what came before it and with a small one after it (its answer); once it is
    // the oldest to go, small events keep to the limit again.
    stream.push(`"${'x'.repeat(32 * 1024)}"`);
    expect(state.retention.retainedBytes).toBeGreaterThan(32 * 1024 + limit / 2);
    stream.push('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(state.retention.retainedBytes).toBeGreaterThan(32 * 1024 + limit / 2);
    for (let index = 0; index < 50; index += 1) stream.push('{"jsonrpc":"2.0","method":"x"}');
    expect(state.retention.retainedBytes).toBeLessThanOrEqual(limit + small);
    state.retention.dispose();
  });

  it('lets kept events go when the window passes, with no later event or reader (issue 27)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const state = owner(1 << 20, 1_000);
    const stream = new SseStream('connection', state);
    stream.attach(new Receiver(), undefined);
    stream.push('{}');
    vi.advanceTimersByTime(500);
    stream.push('{}');
    expect(state.retention.retainedBytes).toBe(2 * ('id: 1\ndata: {}\n\n'.length + EVENT_OVERHEAD_BYTES));
    vi.advanceTimersByTime(501);
    expect(state.retention.retainedBytes).toBe('id: 2\ndata: {}\n\n'.length + EVENT_OVERHEAD_BYTES);
    vi.advanceTimersByTime(500);
    expect(state.retention.retainedBytes).toBe(0);
    state.retention.dispose();
  });

  it('replays the very bytes it sent, after its ring of kept events wrapped and after an earlier replay', async () => {
    // A 40 KiB budget: five 6 KiB events fit, so the ring wraps every few events.
    const state = owner(40 * 1024);
    const stream = new SseStream('s1', state);
    const events = (text: string) =>
      new Map([...text.matchAll(/^id: (\d+)\ndata: ([^\n]*)\n\n/gm)].map((match) => [match[1], match[2]]));
    const first = new Receiver();
    stream.attach(first, undefined);
    const pushOne = (n: number) =>
      stream.push(Buffer.from(`{"n":${n},"pad":"${String.fromCharCode(97 + (n % 26)).repeat(6000)}"}`));
    for (let n = 1; n <= 3; n += 1) pushOne(n);
    await tick();
    // A replay of 2 and 3 (their regions released, then kept again) while later events fill the ring.
    const second = new Receiver();
    expect(stream.attach(second, 1)).toEqual({ ok: true });
    for (let n = 4; n <= 40; n += 1) pushOne(n);
    await tick();
    const third = new Receiver();
    expect(stream.attach(third, 36)).toEqual({ ok: true });
    await tick();
    expect(ids(third.text)).toEqual([37, 38, 39, 40]);
    const sent = events(second.text);
    for (const [id, data] of events(third.text)) expect(data).toBe(sent.get(id));
    expect(events(second.text).get('2')).toBe(events(first.text).get('2'));
    state.retention.dispose();
  });

  it('replays a large event (written as views of its payload) as the very bytes it sent, cursor included', async () => {
    const state = owner(4 << 20);
    const stream = new SseStream('s1', state);
    const first = new Receiver();
    stream.attach(first, undefined);
    const text = `{"jsonrpc":"2.0","method":"m","params":{"pad":"${'p'.repeat(100 * 1024)}"}}`;
    const frame = Buffer.from(text);
    const at = text.indexOf('{"pad"') + 1;
    stream.push(frame, { frame, start: at, end: at, shape: 2 });
    stream.push(Buffer.from('{"n":2}'));
    await tick();
    expect(first.text).toContain('"params":{"_meta":{"acp/cursor":"1"},"pad":');
    const second = new Receiver();
    expect(stream.attach(second, 0)).toEqual({ ok: true });
    await tick();
    // What the first receiver got before it was replaced, event for event.
    const sent = first.text.slice(first.text.indexOf('id: 1\n'), first.text.indexOf(': replaced'));
    expect(second.text.slice(second.text.indexOf('id: 1\n'))).toBe(sent);
    state.retention.dispose();
  });
});
