// Unit tests of the wire errors (byte for byte the SDK's RequestError), parsing and id recovery.
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { RelayErrorCode } from '../shared/constants.js';
import {
  errorResponseText,
  idKey,
  JsonRpcErrorCode,
  parseFrame,
  recoverRequestHead,
  type WireError,
  wireErrors,
} from './json-rpc.js';

describe('parseFrame', () => {
  it('accepts one JSON object', () => {
    expect(parseFrame('{"jsonrpc":"2.0","id":0,"method":"x"}')).toMatchObject({ ok: true });
  });

  it('rejects garbage with -32700, a batch and a scalar with -32600', () => {
    const garbage = parseFrame('not json');
    const batch = parseFrame('[{"id":1}]');
    const scalar = parseFrame('42');
    expect(garbage.ok ? undefined : garbage.error.code).toBe(-32700);
    expect(batch.ok ? undefined : batch.error.code).toBe(-32600);
    expect(scalar.ok ? undefined : scalar.error.code).toBe(-32600);
  });
});

describe('recoverRequestHead', () => {
  it('finds the top-level id token and method of a truncated request', () => {
    expect(
      recoverRequestHead('{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"prompt":"xxx'),
    ).toEqual({ idToken: '12', method: 'session/prompt' });
  });

  it('keeps string ids, 64-bit ids, id 0 and null as written', () => {
    expect(recoverRequestHead('{ "method" : "a\\"b", "id" : "r-\\"1" , "params": ')).toEqual({
      idToken: '"r-\\"1"',
      method: 'a"b',
    });
    expect(recoverRequestHead('{"id":12345678901234567890,"method":"m"')).toEqual({
      idToken: '12345678901234567890',
      method: 'm',
    });
    expect(recoverRequestHead('{"id":0,"method":"m"')).toEqual({ idToken: '0', method: 'm' });
    expect(recoverRequestHead('{"id":null,"method":"m"')).toEqual({ idToken: 'null', method: 'm' });
  });

  it('ignores an id nested inside params', () => {
    expect(recoverRequestHead('{"method":"m","params":{"id":5,"more":"xxxx')).toEqual({
      idToken: undefined,
      method: 'm',
    });
  });

  it('finds no method in a response', () => {
    expect(recoverRequestHead('{"jsonrpc":"2.0","id":3,"result":{"blob":"xxxx')).toEqual({
      idToken: '3',
      method: undefined,
    });
  });
});

describe('wireErrors', () => {
  // The relays write these without loading the SDK; every answer must stay byte-identical to the SDK's own.
  const pairs: ReadonlyArray<[string, WireError, RequestError]> = [
    ['parse error', wireErrors.parseError(), RequestError.parseError()],
    [
      'batch',
      wireErrors.invalidRequest(undefined, 'JSON-RPC batches are not supported'),
      RequestError.invalidRequest(undefined, 'JSON-RPC batches are not supported'),
    ],
    ['not an object', wireErrors.invalidRequest(42), RequestError.invalidRequest(42)],
    ['null as data', wireErrors.invalidRequest(null), RequestError.invalidRequest(null)],
    [
      'method not found',
      wireErrors.methodNotFound('fs/read_text_file'),
      RequestError.methodNotFound('fs/read_text_file'),
    ],
    [
      'internal error',
      wireErrors.internalError({ reason: 'the mirror could not rewrite this message' }),
      RequestError.internalError({ reason: 'the mirror could not rewrite this message' }),
    ],
    [
      'internal error with detail',
      wireErrors.internalError(undefined, 'x'),
      RequestError.internalError(undefined, 'x'),
    ],
    [
      'message too large',
      wireErrors.messageTooLarge(100, 5000),
      new RequestError(RelayErrorCode.MessageTooLarge, 'Message exceeds the 100-byte limit', {
        maxMessageBytes: 100,
        messageBytes: 5000,
      }),
    ],
    [
      'message too large, size unknown',
      wireErrors.messageTooLarge(100, undefined),
      new RequestError(RelayErrorCode.MessageTooLarge, 'Message exceeds the 100-byte limit', {
        maxMessageBytes: 100,
      }),
    ],
    [
      'transport lost',
      wireErrors.transportLost(1006, 'gone'),
      new RequestError(
        RelayErrorCode.TransportLost,
        'ACP remote transport lost: the WebSocket connection closed (code 1006: gone)',
        { transport: 'websocket', closeCode: 1006, reason: 'gone' },
      ),
    ],
  ];

  it.each(pairs)('answers %s exactly as the SDK RequestError does', (_name, ours, sdk) => {
    expect(errorResponseText('"a"', ours)).toBe(
      `{"jsonrpc":"2.0","id":"a","error":${JSON.stringify(sdk.toErrorResponse())}}`,
    );
    expect(errorResponseText('"a"', ours)).toBe(errorResponseText('"a"', sdk));
  });

  it('uses the JSON-RPC codes of the SDK', () => {
    expect(JsonRpcErrorCode).toEqual({
      ParseError: RequestError.parseError().code,
      InvalidRequest: RequestError.invalidRequest().code,
      MethodNotFound: RequestError.methodNotFound('x').code,
      InternalError: RequestError.internalError().code,
    });
    expect(Object.values(JsonRpcErrorCode)).toEqual([-32700, -32600, -32601, -32603]);
  });
});

describe('helpers', () => {
  it('serialises error responses around the id token, which stays byte for byte', () => {
    const text = errorResponseText('12345678901234567890', RequestError.methodNotFound('x'));
    expect(text).toBe(
      '{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32601,"message":"\\"Method not found\\": x","data":{"method":"x"}}}',
    );
    expect(JSON.parse(errorResponseText('0', RequestError.parseError()))).toEqual({
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('distinguishes numeric from string ids', () => {
    expect(idKey(1)).not.toBe(idKey('1'));
  });
});
