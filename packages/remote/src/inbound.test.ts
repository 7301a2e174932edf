import { describe, expect, it } from 'vitest';
import { CloseCode, MESSAGE_TOO_LARGE_ERROR_CODE } from './constants.js';
import { closeReason, inspectWebSocketMessage } from './inbound.js';

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

  it('forwards the original text of a valid object', () => {
    const text = '{"jsonrpc":"2.0","id":0,"method":"_vendor/ping","params":{"unknown":1.0}}';
    expect(inspectWebSocketMessage(Buffer.from(text), false, 1000)).toMatchObject({ type: 'forward', text });
  });
});

describe('closeReason', () => {
  it('keeps close reasons within the 123-byte protocol limit', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(200)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});
