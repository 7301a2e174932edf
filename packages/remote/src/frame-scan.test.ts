import { describe, expect, it } from 'vitest';
import { scanFrame } from './frame-scan.js';
import { classifyFrame, parseFrame } from './json-rpc.js';

/** What the slow path (JSON.parse + classifyFrame) says about a text; undefined when it is not one object. */
function slowPath(text: string) {
  const parsed = parseFrame(text);
  return parsed.ok ? classifyFrame(parsed.message) : undefined;
}

/** The fast path must never accept what the slow path refuses, and must classify exactly like it. */
function expectAgreement(text: string) {
  const fast = scanFrame(Buffer.from(text));
  if (fast === undefined) {
    // Declining is always safe (the caller falls back to the slow path) but must not happen for plain frames.
    return;
  }
  expect({ text, frame: fast }).toEqual({ text, frame: slowPath(text) });
}

const corpus = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',
  '{"jsonrpc":"2.0","id":"r-1","method":"session/new","params":{"cwd":"/x","mcpServers":[]}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"a":[1,2.5,-3e+2,true,false,null]}}}',
  '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}',
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  '{ "id" : 1 , "method" : "a\\"b\\u0041" , "params" : { "id" : 5 } }',
  '{"id":"\\u00e9t\\u00e9","method":"é✓"}',
  '{"id":1.5e3,"result":null}',
  '{"id":-0,"error":{}}',
  '{"id":true,"method":"x"}',
  '{"id":{},"result":1}',
  '{"method":1}',
  '{"foo":[[[],{}],[{"a":{"b":[]}}]]}',
  '{}',
  '\t{ }\t ',
  '{"id":1,"id":"two","method":"m","method":"n"}',
  '{"result":1,"id":3}',
  '{"a":"\\/\\b\\f\\n\\r\\t\\\\"}',
];

const invalid = [
  'hello',
  '42',
  'null',
  '"text"',
  '[{"jsonrpc":"2.0","id":1,"method":"x"}]',
  '{',
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '{,"a":1}',
  '{"a":1}}',
  '{"a":1} {"b":2}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":1e}',
  '{"a":+1}',
  '{"a":tru}',
  '{"a":nul}',
  '{"a":"\\x"}',
  '{"a":"\\u12G4"}',
  '{"a":"\u0001"}',
  '{"a":"tab\there"}',
  "{'a':1}",
  '{"a":[1,]}',
  '{"a":[,1]}',
  '{"a":[1 2]}',
  '{"a" 1}',
  '{a:1}',
  '\ufeff{}',
  '{"a":"unterminated}',
  '{"a":"\\',
];

describe('scanFrame', () => {
  it('classifies valid frames exactly like JSON.parse + classifyFrame', () => {
    for (const text of corpus) {
      expect(scanFrame(Buffer.from(text)), text).toEqual(slowPath(text));
    }
  });

  it('never accepts what JSON.parse refuses or what is not one object', () => {
    for (const text of invalid) {
      expect(scanFrame(Buffer.from(text)), text).toBeUndefined();
    }
  });

  it('declines frames with raw newlines so the slow path can rewrite them', () => {
    expect(scanFrame(Buffer.from('{"id":1,\n"method":"m"}'))).toBeUndefined();
    expect(scanFrame(Buffer.from('{"id":1,\r"method":"m"}'))).toBeUndefined();
  });

  it('agrees with JSON.parse on every one-byte mutation of real frames', () => {
    // Deterministic differential test: replace, delete or insert one byte at every position.
    const replacements = [
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      ':',
      ',',
      ' ',
      '\t',
      '0',
      '-',
      '.',
      'e',
      'a',
      'u',
      '\u0001',
    ];
    for (const base of corpus) {
      for (let index = 0; index <= base.length; index += 1) {
        expectAgreement(base.slice(0, index) + base.slice(index + 1));
        for (const replacement of replacements) {
          expectAgreement(base.slice(0, index) + replacement + base.slice(index + 1));
          expectAgreement(base.slice(0, index) + replacement + base.slice(index));
        }
      }
    }
  });

  it('finds quotes, escapes, control and non-ASCII bytes at every alignment of the four-byte string scan', () => {
    const specials = ['"', '\\', '\\"', '\\u00e9', '\u0001', '\u001f', 'é', '✓', ' ', '~', '\u007f'];
    for (const special of specials) {
      for (let offset = 0; offset < 12; offset += 1) {
        const text = `{"id":1,"method":"${'a'.repeat(offset)}${special}${'b'.repeat(17)}"}`;
        const fast = scanFrame(Buffer.from(text));
        expect({ text, fast }).toEqual({ text, fast: slowPath(text) });
      }
    }
  });

  it('handles deep nesting without recursion and large strings in one pass', () => {
    const deep = `{"a":${'['.repeat(400)}${']'.repeat(400)}}`;
    expect(scanFrame(Buffer.from(deep))).toEqual({ kind: 'unknown' });
    const tooDeep = `{"a":${'['.repeat(600)}${']'.repeat(600)}}`;
    expect(scanFrame(Buffer.from(tooDeep))).toBeUndefined();
    const big = `{"jsonrpc":"2.0","id":9,"method":"m","params":{"blob":"${'x'.repeat(1024 * 1024)}"}}`;
    expect(scanFrame(Buffer.from(big))).toEqual({ kind: 'request', id: 9, method: 'm' });
  });
});
