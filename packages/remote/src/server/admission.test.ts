// Unit tests of the admission checks: Host and Origin, once-only security headers, the bearer token.
import { describe, expect, it } from 'vitest';
import { buildAllowedHostNames, type SecurityPolicy } from '../options/security-policy.js';
import { checkBearer, checkHostAndOrigin, checkSingleSecurityHeaders, tokensMatch } from './admission.js';

const loopbackPolicy: SecurityPolicy = {
  bearerToken: 'sekret',
  allowedOrigins: new Set(['https://editor.example']),
  allowedHostNames: buildAllowedHostNames('127.0.0.1', ['devbox.internal']),
};

describe('tokensMatch', () => {
  it('compares tokens of any length without throwing', () => {
    expect(tokensMatch('abc', 'abc')).toBe(true);
    expect(tokensMatch('abc', 'abd')).toBe(false);
    expect(tokensMatch('', 'abc')).toBe(false);
    expect(tokensMatch('a'.repeat(10_000), 'abc')).toBe(false);
  });
});

describe('checkHostAndOrigin', () => {
  it('accepts loopback names, the bind host and allowed hosts', () => {
    for (const host of ['127.0.0.1:9', 'localhost', '[::1]:9', 'devbox.internal:1']) {
      expect(checkHostAndOrigin({ host }, loopbackPolicy)).toEqual({ ok: true });
    }
  });

  it('refuses other Host names with 403 when bound to loopback (DNS rebinding)', () => {
    expect(checkHostAndOrigin({ host: 'attacker.example:8080' }, loopbackPolicy)).toMatchObject({
      status: 403,
    });
  });

  it('skips the Host check when bound publicly', () => {
    const policy: SecurityPolicy = {
      ...loopbackPolicy,
      allowedHostNames: buildAllowedHostNames('0.0.0.0', []),
    };
    expect(checkHostAndOrigin({ host: 'anything.example' }, policy)).toEqual({ ok: true });
  });

  it('allows a missing Origin, an allowed Origin, and refuses any other with 403', () => {
    expect(checkHostAndOrigin({ host: 'localhost' }, loopbackPolicy)).toEqual({ ok: true });
    expect(
      checkHostAndOrigin({ host: 'localhost', origin: 'https://editor.example' }, loopbackPolicy),
    ).toEqual({
      ok: true,
    });
    expect(
      checkHostAndOrigin({ host: 'localhost', origin: 'https://evil.example' }, loopbackPolicy),
    ).toMatchObject({
      status: 403,
    });
    expect(checkHostAndOrigin({ host: 'localhost', origin: 'null' }, loopbackPolicy)).toMatchObject({
      status: 403,
    });
  });

  it('answers malformed or missing headers with 400', () => {
    expect(checkHostAndOrigin({}, loopbackPolicy)).toMatchObject({ status: 400 });
    expect(checkHostAndOrigin({ host: 'a b' }, loopbackPolicy)).toMatchObject({ status: 400 });
    expect(checkHostAndOrigin({ host: 'localhost', origin: '::::' }, loopbackPolicy)).toMatchObject({
      status: 400,
    });
  });
});

describe('checkSingleSecurityHeaders', () => {
  it('refuses a second Host, Authorization or Origin whatever the case, and nothing else', () => {
    expect(checkSingleSecurityHeaders(['Host', 'a', 'Accept', 'x', 'accept', 'y'])).toEqual({ ok: true });
    for (const name of ['Host', 'Authorization', 'Origin']) {
      expect(checkSingleSecurityHeaders([name, 'a', name.toLowerCase(), 'b'])).toMatchObject({
        ok: false,
        status: 400,
        reason: 'malformed',
      });
    }
  });
});

describe('checkBearer', () => {
  it('accepts the right token with any scheme case', () => {
    expect(checkBearer({ authorization: 'Bearer sekret' }, loopbackPolicy)).toEqual({ ok: true });
    expect(checkBearer({ authorization: 'bearer sekret' }, loopbackPolicy)).toEqual({ ok: true });
  });

  it('answers 401 with a Bearer challenge for missing, wrong or malformed credentials', () => {
    for (const authorization of [undefined, 'Bearer wrong', 'Basic c2VrcmV0', 'Bearer', 'sekret']) {
      expect(checkBearer(authorization === undefined ? {} : { authorization }, loopbackPolicy)).toEqual({
        ok: false,
        status: 401,
        reason: 'auth',
        body: 'missing or invalid bearer token\n',
        headers: { 'WWW-Authenticate': 'Bearer realm="acpremote"' },
      });
    }
  });

  it('lets everything through when no token is configured', () => {
    expect(checkBearer({}, { ...loopbackPolicy, bearerToken: undefined })).toEqual({ ok: true });
  });
});
