import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseReceiver as Receiver } from '../../../test/support/sse-receiver.js';
import { FrameLog } from '../../relay/frame-log.js';
import { MemorySessionKeeper } from '../../sessions/session-keeper.js';
import { silentLogger } from '../../shared/logger.js';
import { routeKeysOf } from '../../wire/route-keys.js';
import { HttpServerPort, type HttpServerPortOptions } from './http-server-port.js';

const keysOf = (payload: Buffer | string) =>
  routeKeysOf(JSON.parse(payload.toString()) as Record<string, unknown>);

function makePort(options: Partial<HttpServerPortOptions> = {}) {
  const port = new HttpServerPort({
    connectionId: 'c-1',
    log: new FrameLog(silentLogger),
    retention: { maxBytes: 1 << 20, windowMs: 60_000 },
    keepAliveMs: 25_000,
    stallTimeoutMs: 60_000,
    firstStreamTimeoutMs: 60_000,
    detachedTimeoutMs: 60_000,
    routeKeysOf: keysOf,
    ...options,
  });
  const received: string[] = [];
  port.receive((frame) => received.push(frame.toString()));
  return { port, received };
}

const message = (value: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...value });
const tick = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('HttpServerPort', () => {
  it('answers initialize with the agent response and queues what the agent wrote before it on the connection stream', async () => {
    const { port, received } = makePort();
    const answer = port.initialize(Buffer.from(message({ id: 0, method: 'initialize', params: {} })), '0');
    expect(received).toHaveLength(1);
    port.send(message({ method: '_vendor/early' }));
    port.send(message({ id: 0, result: { protocolVersion: 1 } }));
    expect(JSON.parse((await answer).toString())).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    const stream = new Receiver();
    port.attachStream(undefined, stream, undefined);
    await tick();
    expect(stream.messages).toEqual([{ jsonrpc: '2.0', method: '_vendor/early' }]);
  });

  it('routes a session’s messages and answers to its stream, and takes a client response without a header', async () => {
    const { port, received } = makePort();
    void port.initialize(Buffer.from(message({ id: 0, method: 'initialize' })), '0');
    port.send(message({ id: 0, result: {} }));
    const connection = new Receiver();
    const session = new Receiver();
    port.attachStream(undefined, connection, undefined);
    port.attachStream('s1', session, undefined);
    const prompt = message({ id: 2, method: 'session/prompt', params: { sessionId: 's1' } });
    expect(port.post(Buffer.from(prompt), keysOf(prompt), 's1')).toEqual({ ok: true });
    port.send(message({ id: 'e1', method: 'elicitation/create', params: { sessionId: 's1' } }));
    const answer = message({ id: 'e1', result: { action: 'accept' } });
    expect(port.post(Buffer.from(answer), keysOf(answer), undefined)).toEqual({ ok: true });
    port.send(message({ id: 2, result: { stopReason: 'end_turn' } }));
    await tick();
    expect(received.slice(1)).toEqual([prompt, answer]);
    expect(session.messages.map((m) => m.id)).toEqual(['e1', 2]);
    expect(connection.messages).toEqual([]);
  });

  it('refuses a header naming another session than params.sessionId', () => {
    const { port } = makePort();
    const cancel = message({ method: 'session/cancel', params: { sessionId: 'a' } });
    expect(port.post(Buffer.from(cancel), keysOf(cancel), 'b')).toEqual({
      ok: false,
      refusal: 'mismatched-session',
    });
  });

  it('is full past the high-water mark of unread events: tells the relay, stops taking POSTs, resumes on drain', async () => {
    const { port } = makePort();
    const stream = new Receiver(true);
    port.attachStream(undefined, stream, undefined);
    let fulls = 0;
    port.onFull(() => {
      fulls += 1;
    });
    const big = message({ method: '_x', params: { pad: 'x'.repeat(600 * 1024) } });
    port.send(big);
    port.send(big);
    port.send(big);
    expect(port.isFull).toBe(true);
    expect(fulls).toBe(1);
    expect(port.reading.isPaused).toBe(true);
    let drained = false;
    port.whenDrained(() => {
      drained = true;
    });
    let reading = false;
    void port.whenReading().then(() => {
      reading = true;
    });
    stream.release();
    for (let turn = 0; turn < 10 && !drained; turn += 1) await tick();
    expect(drained).toBe(true);
    expect(reading).toBe(true);
  });

  it('ends a connection whose client reads nothing for the stall timeout (1008)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const { port } = makePort({ stallTimeoutMs: 4_000 });
    port.attachStream(undefined, new Receiver(true), undefined);
    port.send(message({ method: '_x', params: { pad: 'x'.repeat(2 << 20) } }));
    vi.advanceTimersByTime(5_000);
    expect(await port.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/^send stalled/) });
  });

  it('ends a connection whose reader takes nothing for the stall timeout, also below the high-water mark', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const { port } = makePort({ stallTimeoutMs: 4_000 });
    const stream = new Receiver(true);
    port.attachStream(undefined, stream, undefined);
    port.send(message({ method: '_x', params: { pad: 'x'.repeat(64 * 1024) } }));
    expect(port.isFull).toBe(false);
    vi.advanceTimersByTime(3_000);
    expect(port.isOpen).toBe(true);
    vi.advanceTimersByTime(2_000);
    expect(await port.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/^send stalled/) });
  });

  it('leaves a connection whose reader keeps reading alone, however long it holds events', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const { port } = makePort({ stallTimeoutMs: 4_000 });
    const stream = new Receiver(true);
    port.attachStream(undefined, stream, undefined);
    for (let second = 0; second < 10; second += 1) {
      port.send(message({ method: '_x', params: { pad: 'x'.repeat(64 * 1024) } }));
      stream.release();
      await tick();
      vi.advanceTimersByTime(1_000);
    }
    expect(port.isOpen).toBe(true);
  });

  it('ends a connection whose client opens no event stream within the first-stream timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const detached = new MemorySessionKeeper({ maxDetached: 64, logger: silentLogger });
    const { port } = makePort({ firstStreamTimeoutMs: 1_000, sessions: detached });
    void port.initialize(Buffer.from(message({ id: 0, method: 'initialize' })), '0').catch(() => {});
    port.send(message({ id: 0, result: {} }));
    vi.advanceTimersByTime(1_000);
    expect(await port.closed).toEqual({
      code: 1001,
      reason: 'the client opened no event stream within 1000 ms',
    });
    // Never a detached session: it had nothing anyone could come back for.
    expect(detached.detachedCount).toBe(0);
  });

  it('waits as a detached session once its readers went away: one more than the bound ends the oldest', async () => {
    const detached = new MemorySessionKeeper({ maxDetached: 1, logger: silentLogger });
    const lines: string[] = [];
    const logger = { ...silentLogger, info: (message: string) => lines.push(message) };
    const ports = [1, 2].map(() => makePort({ sessions: detached, log: new FrameLog(logger) }).port);
    const streams = ports.map((port) => {
      const stream = new Receiver();
      port.attachStream(undefined, stream, undefined);
      return stream;
    });
    streams[0]!.destroy();
    await tick();
    expect(detached.detachedCount).toBe(1);
    streams[1]!.destroy();
    await tick();
    expect(await ports[0]!.closed).toEqual({
      code: 1001,
      reason: 'resume window cut short: more than 1 detached sessions',
    });
    expect(detached.detachedCount).toBe(1);
    // A POST meanwhile keeps the connection attended while it is read; after it, it waits again (logged once).
    const done = ports[1]!.postStarted();
    expect(detached.detachedCount).toBe(0);
    done();
    expect(detached.detachedCount).toBe(1);
    expect(lines.filter((line) => /session kept for resume/.test(line))).toHaveLength(2);
    // A reader that comes back takes its connection out of the detached sessions.
    ports[1]!.attachStream(undefined, new Receiver(), undefined);
    expect(detached.detachedCount).toBe(0);
  });

  it('ends a connection nobody reads from or posts to for the detached timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { port } = makePort({ detachedTimeoutMs: 1_000 });
    const stream = new Receiver();
    port.attachStream(undefined, stream, undefined);
    vi.advanceTimersByTime(5_000);
    expect(port.isOpen).toBe(true);
    stream.destroy();
    await tick();
    vi.advanceTimersByTime(1_000);
    expect(await port.closed).toMatchObject({ code: 1001 });
  });

  it('closes after its streams delivered what they hold, each ending with the closing comment', async () => {
    const { port } = makePort();
    void port.initialize(Buffer.from(message({ id: 0, method: 'initialize' })), '0');
    port.send(message({ id: 0, result: {} }));
    port.send(message({ method: '_last' }));
    port.close(4000, 'agent process exited with code 0');
    expect(port.isOpen).toBe(false);
    const stream = new Receiver();
    expect(port.attachStream(undefined, stream, undefined)).toEqual({ ok: true });
    expect(await port.closed).toEqual({ code: 4000, reason: 'agent process exited with code 0' });
    expect(stream.text).toMatch(
      /data: \{"jsonrpc":"2.0","method":"_last"\}\n\n: closed 4000 agent process exited with code 0\n\n$/,
    );
    expect(port.attachStream('s', new Receiver(), undefined)).toEqual({ ok: false, refusal: 'ended' });
  });

  it('gives each connection at most its session stream limit', () => {
    const { port } = makePort({
      routeLimits: { maxSessionStreams: 1, maxPendingRoutes: 10, maxPendingRouteBytes: 1 << 20 },
    });
    expect(port.attachStream('a', new Receiver(), undefined)).toEqual({ ok: true });
    expect(port.attachStream('b', new Receiver(), undefined)).toEqual({
      ok: false,
      refusal: 'session-limit',
    });
  });
});
