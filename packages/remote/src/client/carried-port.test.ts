import { describe, expect, it } from 'vitest';
import { RouteKeyReader } from '../wire/route-key-reader.js';
import { routeKeysOf } from '../wire/route-keys.js';
import { inboundKeys } from './carried-port.js';

const reader = new RouteKeyReader();
const keysOf = (message: Record<string, unknown>) =>
  inboundKeys(Buffer.from(JSON.stringify(message)), reader);
/** Keys without their undefined members, to compare the two readers. */
const defined = (keys: object) => JSON.parse(JSON.stringify(keys)) as unknown;

describe('inboundKeys', () => {
  it('reads a session/update as the SDK writes it from its head, with the same keys a scan gives', () => {
    const update = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'sess-1',
        update: { sessionUpdate: 'agent_message_chunk', text: 'x'.repeat(1 << 20) },
      },
    };
    expect(keysOf(update)).toEqual({ kind: 'notification', method: 'session/update', sessionId: 'sess-1' });
    expect(defined(keysOf(update))).toEqual(defined(routeKeysOf(update)));
  });

  it('scans every other frame: another member order, an escaped session id, a request, a response', () => {
    const cases: Record<string, unknown>[] = [
      { method: 'session/update', jsonrpc: '2.0', params: { sessionId: 'a' } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'a"b\\c' } },
      { jsonrpc: '2.0', id: 3, method: 'session/request_permission', params: { sessionId: 's' } },
      { jsonrpc: '2.0', id: 'n', result: { sessionId: 's' } },
    ];
    for (const message of cases) expect(defined(keysOf(message))).toEqual(defined(routeKeysOf(message)));
  });
});
