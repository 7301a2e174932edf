// Unit tests of the inbound frame checks.
import { describe, expect, it } from 'vitest';
import { CloseCode, RelayErrorCode } from '../shared/constants.js';
import { closeReason, FrameChecks, inspectOversize, refusalReply } from './inbound.js';

describe('FrameChecks', () => {
  it('forwards the very bytes of a valid object', () => {
    const checks = new FrameChecks({ utf8: 'trusted', singleLine: true });
    const bytes = Buffer.from('{"jsonrpc":"2.0","id":0,"method":"_vendor/ping","params":{"unknown":1.0}}');
    expect(checks.check(bytes)).toBe(bytes);
  });

  it('replaces raw line breaks with spaces where the frame becomes a line, and keeps them otherwise', () => {
    const text = '{"jsonrpc":"2.0",\n"id":1,\r\n"method":"m","params":{"text":"a\\nb"}}';
    const single = new FrameChecks({ utf8: 'trusted', singleLine: true }).check(Buffer.from(text))!;
    expect(single.toString()).toBe(text.replace(/[\r\n]/g, ' '));
    const kept = new FrameChecks({ utf8: 'refuse', singleLine: false }).check(Buffer.from(text))!;
    expect(kept.toString()).toBe(text);
  });

  it('names refusals exactly as JSON.parse would: parse error, batch, not an object', () => {
    const checks = new FrameChecks({ utf8: 'trusted', singleLine: true });
    const refusal = (text: string) => {
      expect(checks.check(Buffer.from(text))).toBeUndefined();
      return checks.refusal!;
    };
    expect(refusal('hello')).toMatchObject({ reason: 'parse', error: { code: -32700 } });
    expect(refusal('[{"id":1}]')).toMatchObject({ reason: 'batch', error: { code: -32600 } });
    expect(refusal('42')).toMatchObject({ reason: 'not-object', error: { code: -32600, data: 42 } });
    expect(JSON.parse(refusalReply(refusal('x')).text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('repairs invalid UTF-8 as a text decoder would, or refuses it, per the rules', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id":1,"method":"m","params":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const repaired = new FrameChecks({ utf8: 'repair', singleLine: true }).check(bytes);
    expect(repaired?.toString('utf8')).toBe('{"id":1,"method":"m","params":"\ufffd"}');
    const refusing = new FrameChecks({ utf8: 'refuse', singleLine: false });
    expect(refusing.check(bytes)).toBeUndefined();
    expect(refusing.refusal?.reason).toBe('utf8');
  });

  it('drops one leading byte order mark only where the rules say so', () => {
    const withMark = Buffer.from('\ufeff{"id":1,"result":{}}');
    expect(
      new FrameChecks({ utf8: 'refuse', stripByteOrderMark: true, singleLine: false })
        .check(withMark)
        ?.toString(),
    ).toBe('{"id":1,"result":{}}');
    const strict = new FrameChecks({ utf8: 'trusted', singleLine: true });
    expect(strict.check(withMark)).toBeUndefined();
    expect(strict.refusal?.reason).toBe('parse');
  });
});

describe('inspectOversize', () => {
  it('answers an oversized request with a JSON-RPC error carrying its id exactly as sent', () => {
    const head = Buffer.from(
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"session/prompt","params":{"x":"',
    );
    const action = inspectOversize(head, 100, 5000);
    expect(action.type).toBe('reply');
    const text = action.type === 'reply' ? action.text : '';
    expect(text).toContain('"id":12345678901234567890,');
    expect(JSON.parse(text)).toMatchObject({
      error: { code: RelayErrorCode.MessageTooLarge, data: { maxMessageBytes: 100, messageBytes: 5000 } },
    });
  });

  it('closes with 1009 when no request id can be recovered', () => {
    expect(
      inspectOversize(Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{'), 10, 99),
    ).toMatchObject({
      type: 'close',
      code: CloseCode.MessageTooBig,
      reason: 'message exceeds the 10-byte limit',
    });
  });
});

describe('closeReason', () => {
  it('keeps close reasons within the 123-byte protocol limit', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(200)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});
