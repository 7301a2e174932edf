import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import {
  classifyFrame,
  errorResponseText,
  idKey,
  parseFrame,
  recoverRequestHead,
  toSingleLine,
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

describe('classifyFrame', () => {
  it('tells requests (id 0 included), notifications and responses apart', () => {
    expect(classifyFrame({ id: 0, method: 'a' })).toEqual({ kind: 'request', id: 0, method: 'a' });
    expect(classifyFrame({ method: 'a' })).toEqual({ kind: 'notification', method: 'a' });
    expect(classifyFrame({ id: 'x', result: null })).toEqual({ kind: 'response', id: 'x' });
    expect(classifyFrame({ id: 1, error: {} })).toEqual({ kind: 'response', id: 1 });
    expect(classifyFrame({ foo: 1 })).toEqual({ kind: 'unknown' });
  });
});

describe('recoverRequestHead', () => {
  it('finds the top-level id and method of a truncated request', () => {
    expect(
      recoverRequestHead('{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"prompt":"xxx'),
    ).toEqual({
      id: 12,
      method: 'session/prompt',
    });
  });

  it('handles string ids, id 0, escapes and whitespace', () => {
    expect(recoverRequestHead('{ "method" : "a\\"b", "id" : "r-\\"1" , "params": ')).toEqual({
      id: 'r-"1',
      method: 'a"b',
    });
    expect(recoverRequestHead('{"id":0,"method":"m"')).toEqual({ id: 0, method: 'm' });
  });

  it('ignores an id nested inside params', () => {
    expect(recoverRequestHead('{"method":"m","params":{"id":5,"more":"xxxx')).toEqual({
      id: undefined,
      method: 'm',
    });
  });

  it('finds no method in a response', () => {
    expect(recoverRequestHead('{"jsonrpc":"2.0","id":3,"result":{"blob":"xxxx')).toEqual({
      id: 3,
      method: undefined,
    });
  });
});

describe('helpers', () => {
  it('replaces raw newlines (JSON whitespace) so a frame stays one NDJSON line', () => {
    const text = '{\n"a":\r\n"b\\nc"}';
    const single = toSingleLine(text);
    expect(single).not.toMatch(/[\r\n]/);
    expect(JSON.parse(single)).toEqual(JSON.parse(text));
  });

  it('serialises error responses and distinguishes numeric from string ids', () => {
    expect(JSON.parse(errorResponseText(0, RequestError.methodNotFound('x')))).toEqual({
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32601, message: '"Method not found": x', data: { method: 'x' } },
    });
    expect(idKey(1)).not.toBe(idKey('1'));
  });
});
