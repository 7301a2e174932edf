import { describe, expect, it } from 'vitest';
import { CloseCode, MESSAGE_TOO_LARGE_ERROR_CODE } from './constants.js';
import { closeReason, inspectBytes, inspectWebSocketMessage } from './inbound.js';

describe('inspectWebSocketMessage', () => {
  it('closes with 1003 on a binary frame', () => {
    expect(inspectWebSocketMessage(Buffer.from('{}'), true, 100)).toMatchObject({
      type: 'close',
      code: CloseCode.UnsupportedData,
    });
  });

  it('answers an oversized request with a JSON-RPC error for its id', () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'session/prompt',
      params: { blob: 'x'.repeat(200) },
    });
    const action = inspectWebSocketMessage(Buffer.from(text), false, 100);
    expect(action.type).toBe('reply');
    const reply = JSON.parse(action.type === 'reply' ? action.text : '{}');
    expect(reply).toMatchObject({ id: 9, error: { code: MESSAGE_TOO_LARGE_ERROR_CODE } });
  });

  it('closes with 1009 on an oversized notification or response', () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { blob: 'x'.repeat(200) },
    });
    expect(inspectWebSocketMessage(Buffer.from(text), false, 100)).toMatchObject({
      type: 'close',
      code: CloseCode.MessageTooBig,
    });
  });

  it('answers garbage with a JSON-RPC error with id null', () => {
    const action = inspectWebSocketMessage(Buffer.from('hello'), false, 100);
    expect(action.type === 'reply' ? JSON.parse(action.text) : undefined).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
  });

  it('forwards the original bytes of a valid object, classified', () => {
    const text = '{"jsonrpc":"2.0","id":0,"method":"_vendor/ping","params":{"unknown":1.0}}';
    const bytes = Buffer.from(text);
    const action = inspectWebSocketMessage(bytes, false, 1000);
    expect(action).toMatchObject({
      type: 'forward',
      frame: { kind: 'request', id: 0, method: '_vendor/ping' },
    });
    expect(action.type === 'forward' ? action.payload : undefined).toBe(bytes);
    expect(action.type === 'forward' ? action.message() : undefined).toEqual(JSON.parse(text));
  });

  it('replaces raw newlines (JSON whitespace) so a frame stays one NDJSON line', () => {
    const text = '{"jsonrpc":"2.0",\n"id":1,\r\n"method":"m","params":{"text":"a\\nb"}}';
    const action = inspectWebSocketMessage(Buffer.from(text), false, 1000);
    const payload = action.type === 'forward' ? action.payload.toString('utf8') : '';
    expect(payload).not.toMatch(/[\r\n]/);
    expect(JSON.parse(payload)).toEqual(JSON.parse(text));
  });

  it('answers a scalar and a batch with -32600 and keeps the slow path exact', () => {
    for (const text of ['42', '[{"jsonrpc":"2.0","id":1,"method":"x"}]']) {
      const action = inspectWebSocketMessage(Buffer.from(text), false, 1000);
      expect(action.type === 'reply' ? JSON.parse(action.text) : undefined).toMatchObject({
        id: null,
        error: { code: -32600 },
      });
    }
  });
});

describe('inspectBytes', () => {
  it('decodes invalid UTF-8 from a line with replacement characters, as a text decoder would', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id":1,"method":"m","params":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const action = inspectBytes(bytes, false);
    expect(action.type === 'forward' ? action.payload.toString('utf8') : '').toBe(
      '{"id":1,"method":"m","params":"\ufffd"}',
    );
  });
});

describe('closeReason', () => {
  it('keeps close reasons within the 123-byte protocol limit', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(200)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});
