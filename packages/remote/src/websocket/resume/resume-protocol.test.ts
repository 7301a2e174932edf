// Unit tests of the resume wire: control frames, tokens and request headers.
import { describe, expect, it } from 'vitest';
import {
  encodeControlFrame,
  isResumeToken,
  MAX_CONTROL_FRAME_BYTES,
  newResumeToken,
  parseControlFrame,
  readResumeRequest,
  resumeRequestHeaders,
} from './resume-protocol.js';

const token = newResumeToken();

describe('control frames', () => {
  it('round-trips welcome and ack', () => {
    for (const frame of [
      { type: 'welcome', token, resumed: true, received: 7, windowMs: 60_000, bufferBytes: 1024 },
      { type: 'ack', received: 123 },
    ] as const) {
      expect(parseControlFrame(encodeControlFrame(frame))).toEqual({ ok: true, frame });
    }
  });

  it('ignores a type of a later version', () => {
    expect(parseControlFrame(Buffer.from('{"type":"ping2","x":1}'))).toEqual({ ok: true, frame: undefined });
  });

  it.each([
    ['not JSON', 'ack'],
    ['not an object', '[1]'],
    ['no type', '{"received":1}'],
    ['a negative count', '{"type":"ack","received":-1}'],
    ['a fractional count', '{"type":"ack","received":1.5}'],
    [
      'a welcome without a token',
      '{"type":"welcome","resumed":false,"received":0,"windowMs":1,"bufferBytes":1}',
    ],
    [
      'a welcome with a short token',
      '{"type":"welcome","token":"abc","resumed":false,"received":0,"windowMs":1,"bufferBytes":1}',
    ],
  ])('refuses %s', (_name, text) => {
    expect(parseControlFrame(Buffer.from(text)).ok).toBe(false);
  });

  it('refuses a control frame over its size limit', () => {
    const padded = Buffer.from(`{"type":"ack","received":1,"pad":"${'x'.repeat(MAX_CONTROL_FRAME_BYTES)}"}`);
    expect(parseControlFrame(padded)).toEqual({ ok: false, error: expect.stringMatching(/over 4096 bytes/) });
  });
});

describe('resume tokens and request headers', () => {
  it('makes 256-bit base64url tokens, different each time', () => {
    expect(isResumeToken(token)).toBe(true);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(newResumeToken()).not.toBe(token);
  });

  it('starts a token with the instance that issued it, so a proxy can route its resume there', () => {
    const tagged = newResumeToken('a-1');
    expect(tagged).toMatch(/^a-1\.[A-Za-z0-9_-]{43}$/);
    expect(isResumeToken(tagged)).toBe(true);
    expect(readResumeRequest(resumeRequestHeaders(tagged, 3))).toEqual({
      kind: 'resume',
      token: tagged,
      received: 3,
    });
    for (const malformed of [`.${token}`, `a.b.${token}`, `${'x'.repeat(33)}.${token}`, 'a.short'])
      expect(isResumeToken(malformed), malformed).toBe(false);
  });

  it('reads a resume request from its two headers', () => {
    expect(readResumeRequest({})).toEqual({ kind: 'none' });
    expect(readResumeRequest(resumeRequestHeaders(token, 42))).toEqual({
      kind: 'resume',
      token,
      received: 42,
    });
  });

  it.each([
    ['only the token', { 'acpkit-resume-token': token }],
    ['only the count', { 'acpkit-resume-received': '1' }],
    ['a malformed token', { 'acpkit-resume-token': 'short', 'acpkit-resume-received': '1' }],
    ['a negative count', { 'acpkit-resume-token': token, 'acpkit-resume-received': '-1' }],
    ['a count in exponent form', { 'acpkit-resume-token': token, 'acpkit-resume-received': '1e3' }],
    ['a repeated header', { 'acpkit-resume-token': [token, token], 'acpkit-resume-received': '1' }],
  ])('refuses %s', (_name, headers) => {
    expect(readResumeRequest(headers).kind).toBe('invalid');
  });
});
