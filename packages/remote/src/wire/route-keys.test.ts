import { describe, expect, it } from 'vitest';
import { compileWatch, FrameScanner } from './frame-scan.js';
import { ROUTE_WATCH, readRouteKeys, routeKeysOf, routeNodesOf } from './route-keys.js';

const frames = [
  '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}',
  '{"jsonrpc":"2.0","id":"a\\u0062","method":"elicitation/create","params":{"sessionId":"s\\n2"}}',
  '{"jsonrpc":"2.0","id":1.0,"result":{"sessionId":"new"}}',
  '{"jsonrpc":"2.0","id":1e0,"result":null}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionId":"inner"}}}',
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  '{"jsonrpc":"2.0","id":7,"method":"x","params":{"sessionId":1},"method":"y"}',
  '{"jsonrpc":"2.0","id":-0,"method":"z","params":[1,2]}',
];

describe('readRouteKeys', () => {
  it.each(frames)('reads what routeKeysOf reads from JSON.parse: %s', (frame) => {
    const watch = compileWatch(ROUTE_WATCH);
    const scanner = new FrameScanner(watch);
    expect(scanner.scan(Buffer.from(frame))).toBe(true);
    expect(readRouteKeys(scanner, routeNodesOf(watch))).toEqual(
      routeKeysOf(JSON.parse(frame) as Record<string, unknown>),
    );
  });
});

describe('routeKeysOf', () => {
  it('reads kind, id, method and the two sessionIds of a message object', () => {
    expect(
      routeKeysOf({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's' } }),
    ).toEqual({
      kind: 'request',
      id: '3',
      method: 'session/prompt',
      sessionId: 's',
      resultSessionId: undefined,
    });
    expect(routeKeysOf({ jsonrpc: '2.0', id: 'a', result: { sessionId: 'n' } })).toMatchObject({
      kind: 'response',
      id: '"a"',
      resultSessionId: 'n',
    });
    expect(routeKeysOf({ jsonrpc: '2.0', method: 'x', params: null })).toMatchObject({
      kind: 'notification',
    });
  });
});
