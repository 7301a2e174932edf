import { describe, expect, it } from 'vitest';
import { CONNECTION_STREAM, routeBytes, StreamRoutes } from './stream-routes.js';

describe('StreamRoutes', () => {
  it('answers a session request on its session stream, by header or by params.sessionId', () => {
    const routes = new StreamRoutes();
    expect(
      routes.inbound({ kind: 'request', id: '1', method: 'session/prompt', sessionId: 's1' }, 's1'),
    ).toEqual({
      ok: true,
    });
    expect(
      routes.inbound({ kind: 'request', id: '2', method: 'session/set_model', sessionId: 's2' }, undefined),
    ).toEqual({
      ok: true,
    });
    expect(routes.outbound({ kind: 'response', id: '1' })).toBe('s1');
    expect(routes.outbound({ kind: 'response', id: '2' })).toBe('s2');
    // Answered once: a second answer with the same id (a buggy agent) goes to the connection stream.
    expect(routes.outbound({ kind: 'response', id: '1' })).toBe(CONNECTION_STREAM);
  });

  it('answers session/new, load, resume and fork on the connection stream, and connection requests there too', () => {
    const routes = new StreamRoutes();
    for (const [id, method] of [
      ['1', 'session/new'],
      ['2', 'session/load'],
      ['3', 'session/resume'],
      ['4', 'session/fork'],
      ['5', 'authenticate'],
    ] as const) {
      const sessionId = method.startsWith('session/') && method !== 'session/new' ? 's1' : undefined;
      routes.inbound({ kind: 'request', id, method, sessionId }, undefined);
      expect(routes.outbound({ kind: 'response', id, resultSessionId: 's9' })).toBe(CONNECTION_STREAM);
    }
  });

  it('refuses a header that names another session than params.sessionId, and over-long ids', () => {
    const routes = new StreamRoutes();
    expect(routes.inbound({ kind: 'notification', method: 'session/cancel', sessionId: 'a' }, 'b')).toEqual({
      ok: false,
      refusal: 'mismatched-session',
    });
    expect(routes.inbound({ kind: 'request', id: 'x'.repeat(1025), method: 'm' }, undefined)).toEqual({
      ok: false,
      refusal: 'id-too-long',
    });
  });

  it("takes a client's response whatever its headers (the Python client sends none)", () => {
    const routes = new StreamRoutes();
    expect(routes.inbound({ kind: 'response', id: '0' }, undefined)).toEqual({ ok: true });
    expect(routes.inbound({ kind: 'response', id: '0' }, 'another-session')).toEqual({ ok: true });
  });

  it("sends the agent's session messages to the session stream and the rest to the connection stream", () => {
    const routes = new StreamRoutes();
    expect(routes.outbound({ kind: 'notification', method: 'session/update', sessionId: 's1' })).toBe('s1');
    expect(routes.outbound({ kind: 'request', id: '0', method: 'elicitation/create', sessionId: 's1' })).toBe(
      's1',
    );
    expect(routes.outbound({ kind: 'request', id: '1', method: 'elicitation/create' })).toBe(
      CONNECTION_STREAM,
    );
    expect(routes.outbound({ kind: 'notification', method: '_vendor/x' })).toBe(CONNECTION_STREAM);
  });

  it('routes past its limits to the connection stream', () => {
    const routes = new StreamRoutes({
      maxSessionStreams: 2,
      maxPendingRoutes: 1,
      maxPendingRouteBytes: 1 << 20,
    });
    expect(routes.outbound({ kind: 'notification', sessionId: 'a' })).toBe('a');
    expect(routes.outbound({ kind: 'notification', sessionId: 'b' })).toBe('b');
    expect(routes.outbound({ kind: 'notification', sessionId: 'c' })).toBe(CONNECTION_STREAM);
    expect(routes.claimSession('c')).toBe(false);
    routes.inbound({ kind: 'request', id: '1', method: 'session/prompt', sessionId: 'a' }, undefined);
    routes.inbound({ kind: 'request', id: '2', method: 'session/prompt', sessionId: 'b' }, undefined);
    expect(routes.outbound({ kind: 'response', id: '2' })).toBe(CONNECTION_STREAM);
    expect(routes.outbound({ kind: 'response', id: '1' })).toBe('a');
  });

  it('bounds the memory of remembered routes: past the byte bound an answer goes to the connection stream, and it is told (issue 27)', () => {
    let full = 0;
    const longId = (index: number) => `${index}:${'i'.repeat(1000)}`;
    const routes = new StreamRoutes(
      { maxSessionStreams: 4, maxPendingRoutes: 65_536, maxPendingRouteBytes: 3 * routeBytes(longId(0)) },
      () => {
        full += 1;
      },
    );
    for (let index = 0; index < 5; index += 1)
      routes.inbound(
        { kind: 'request', id: longId(index), method: 'session/prompt', sessionId: 's' },
        undefined,
      );
    expect(full).toBe(2);
    expect(routes.routeBytes).toBe(3 * routeBytes(longId(0)));
    expect(routes.outbound({ kind: 'response', id: longId(4) })).toBe(CONNECTION_STREAM);
    expect(routes.outbound({ kind: 'response', id: longId(0) })).toBe('s');
    expect(routes.routeBytes).toBe(2 * routeBytes(longId(0)));
    routes.inbound({ kind: 'request', id: longId(9), method: 'session/prompt', sessionId: 's' }, undefined);
    expect(routes.outbound({ kind: 'response', id: longId(9) })).toBe('s');
  });
});
