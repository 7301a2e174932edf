import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readRequestBody } from './request-body.js';

/** An IncomingMessage stand-in: a stream with headers and `complete`. */
function fakeRequest(headers: Record<string, string>): PassThrough & IncomingMessage {
  const request = new PassThrough() as PassThrough & IncomingMessage & { complete: boolean };
  Object.assign(request, { headers, complete: false });
  request.once('end', () => {
    request.complete = true;
  });
  return request;
}

describe('readRequestBody', () => {
  it('joins the chunks of a body within the limit', async () => {
    const request = fakeRequest({});
    const body = readRequestBody(request, 16);
    request.write('{"a":');
    request.end('1}');
    expect(await body).toEqual({ ok: true, body: Buffer.from('{"a":1}') });
  });

  it('refuses a Content-Length over the limit without reading a byte', async () => {
    const request = fakeRequest({ 'content-length': '17' });
    request.write('x'.repeat(17));
    expect(await readRequestBody(request, 16)).toEqual({ ok: false, reason: 'size', bytes: 17 });
    expect(request.readableLength).toBe(17);
  });

  it('stops at the limit of a body without Content-Length and keeps none of it', async () => {
    const request = fakeRequest({ 'transfer-encoding': 'chunked' });
    const body = readRequestBody(request, 16);
    request.write('x'.repeat(10));
    request.write('x'.repeat(10));
    expect(await body).toEqual({ ok: false, reason: 'size', bytes: undefined });
    expect(request.isPaused()).toBe(true);
  });

  it('reports a request that ends before its body', async () => {
    const request = fakeRequest({ 'content-length': '10' });
    const body = readRequestBody(request, 16);
    request.write('abc');
    request.destroy();
    expect(await body).toEqual({ ok: false, reason: 'aborted' });
  });

  describe('with a minimum pace (issue 27)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const pace = { graceMs: 5_000, bytesPerSecond: 1_000 };

    it('gives up a body that dribbles after the grace, its deadline growing with what arrived', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const request = fakeRequest({ 'content-length': '100000' });
      let outcome: unknown;
      void readRequestBody(request, 1 << 20, pace).then((result) => {
        outcome = result;
      });
      request.write('x'.repeat(2_000));
      await vi.advanceTimersByTimeAsync(6_900);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(200);
      expect(outcome).toEqual({ ok: false, reason: 'slow', bytes: 2_000 });
    });

    it('reads a body that keeps the pace', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const request = fakeRequest({});
      const body = readRequestBody(request, 1 << 20, pace);
      for (let second = 0; second < 10; second += 1) {
        request.write('x'.repeat(1_500));
        await vi.advanceTimersByTimeAsync(1_000);
      }
      request.end();
      expect(await body).toMatchObject({ ok: true });
    });
  });
});
