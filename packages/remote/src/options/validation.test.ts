// Unit tests of option validation: one rule per option, one INVALID_OPTION error each.
import { describe, expect, it } from 'vitest';
import { RemoteDefaults } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { AcpRemoteOptionError } from './option-error.js';
import {
  resolveBearerTokenOption,
  resolveCommandOptions,
  resolveConnectOptions,
  resolveMirrorOptions,
  resolveServeOptions,
} from './validation.js';

function errorOf(action: () => unknown): AcpRemoteError {
  try {
    action();
  } catch (error) {
    if (AcpRemoteError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an AcpRemoteError');
}

const URL_OK = 'ws://127.0.0.1:1/acp/ws';

describe('one rule per option, one error', () => {
  it.each([
    ['port', { port: -1 }, 'port must be an integer from 0 to 65535 (0 picks any free port), got -1'],
    ['port', { port: 65_536 }, 'port must be an integer from 0 to 65535 (0 picks any free port), got 65536'],
    ['maxConnections', { maxConnections: 0 }, 'maxConnections must be a positive integer, got 0'],
    [
      'maxHttpConnections',
      { maxHttpConnections: 1.5 },
      'maxHttpConnections must be a positive integer, got 1.5',
    ],
    [
      'maxMessageBytes',
      { maxMessageBytes: Number.NaN },
      'maxMessageBytes must be a positive integer number of bytes, got NaN',
    ],
    [
      'pingIntervalMs',
      { pingIntervalMs: -5 },
      'pingIntervalMs must be a non-negative integer number of milliseconds (0 disables pings), got -5',
    ],
    [
      'stallTimeoutMs',
      { stallTimeoutMs: '10' },
      'stallTimeoutMs must be a non-negative integer number of milliseconds (0 disables the stall timeout), got "10"',
    ],
    [
      'host',
      { host: '  ' },
      'host must be a host name or IP address to bind (an IPv6 address may be bracketed: [::1]), got "  "',
    ],
    [
      'host',
      { host: '[not-ipv6]' },
      'host must be a host name or IP address to bind (an IPv6 address may be bracketed: [::1]), got "[not-ipv6]"',
    ],
    [
      'mountPath',
      { mountPath: '/healthz' },
      'mountPath must be a path such as "/acp" (no whitespace, query or fragment; /healthz and /readyz are reserved), got "/healthz"',
    ],
    [
      'mountPath',
      { mountPath: '/metrics', metrics: true },
      'mountPath must be another path than /metrics when metrics is on, got "/metrics"',
    ],
    [
      'allowedOrigins',
      { allowedOrigins: ['nope'] },
      'allowedOrigins entry must be an origin such as "https://editor.example", got "nope"',
    ],
    [
      'resumeWindowMs',
      { resumeWindowMs: 2_147_483_648 },
      'resumeWindowMs must be a non-negative integer number of milliseconds up to 2147483647 (0 turns resume off), got 2147483648',
    ],
    [
      'resumeBufferBytes',
      { resumeBufferBytes: 0 },
      'resumeBufferBytes must be a positive integer number of bytes, got 0',
    ],
    [
      'maxDetachedSessions',
      { maxDetachedSessions: -1 },
      'maxDetachedSessions must be a non-negative integer (0 keeps no session for a resume), got -1',
    ],
    ['maxPendingRequests', { maxPendingRequests: 0 }, 'maxPendingRequests must be a positive integer, got 0'],
  ])('serve option %s', (name, options, message) => {
    const error = errorOf(() => resolveServeOptions({ logger: silentLogger, ...(options as object) }));
    expect(error.code).toBe(AcpRemoteErrorCode.InvalidOption);
    expect(error.message).toBe(message);
    // A program branches on the option's name, never on the message.
    expect(AcpRemoteOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'AcpRemoteOptionError', option: name });
  });

  it.each([{ pingIntervalMs: -1 }, { stallTimeoutMs: -1 }, { maxPendingRequests: 0.5 }])(
    'applies the same rule to an option the server and the client share: %o',
    (options) => {
      const serve = errorOf(() => resolveServeOptions(options));
      const connect = errorOf(() => resolveConnectOptions(URL_OK, options));
      expect(connect.message).toBe(serve.message);
    },
  );

  it('defaults the limits the server and the client share', () => {
    const serve = resolveServeOptions({ logger: silentLogger });
    const connect = resolveConnectOptions(URL_OK, {});
    for (const resolved of [serve, connect]) {
      expect(resolved.stallTimeoutMs).toBe(RemoteDefaults.stallTimeoutMs);
      expect(resolved.maxPendingRequests).toBe(RemoteDefaults.maxPendingRequests);
    }
    expect(serve.maxDetachedSessions).toBe(RemoteDefaults.maxDetachedSessions);
    expect(resolveServeOptions({ maxDetachedSessions: 0, logger: silentLogger }).maxDetachedSessions).toBe(0);
  });

  it('accepts 0 where the rule allows it', () => {
    expect(resolveServeOptions({ pingIntervalMs: 0, logger: silentLogger }).pingIntervalMs).toBe(0);
    expect(resolveConnectOptions(URL_OK, { pingIntervalMs: 0 }).pingIntervalMs).toBe(0);
  });

  it('defaults maxHttpConnections and unbrackets an IPv6 bind host', () => {
    const resolved = resolveServeOptions({ host: '[::1]', logger: silentLogger });
    expect(resolved.host).toBe('::1');
    expect(resolved.maxHttpConnections).toBe(RemoteDefaults.maxHttpConnections);
    expect(resolved.policy.allowedHostNames?.has('[::1]')).toBe(true);
  });

  it('names the library options when refusing a public bind without a token', () => {
    const error = errorOf(() => resolveServeOptions({ host: '0.0.0.0' }));
    expect(error.code).toBe(AcpRemoteErrorCode.UnauthenticatedPublicBind);
    expect(error.message).toBe(
      'refusing to serve on non-loopback host "0.0.0.0" without a bearer token; set bearerToken, or ' +
        'allowUnauthenticated if something else guards access',
    );
  });
});

describe('the bearer token rule', () => {
  it('trims surrounding whitespace and keeps visible ASCII', () => {
    expect(resolveBearerTokenOption('  abc-DEF_123.~+/=  ')).toBe('abc-DEF_123.~+/=');
  });

  it.each([
    ['a blank token', '   ', 'a blank string'],
    ['inner whitespace', 'abc def', 'whitespace at position 4 of 7'],
    ['a control character', 'abc\u0001', 'a control character at position 4 of 4'],
    ['Latin-1', 'caf\u00e9', 'a non-ASCII character at position 4 of 4'],
    ['above U+00FF', 'token\u20ac', 'a non-ASCII character at position 6 of 6'],
  ])('refuses %s without echoing the token', (_case, token, shown) => {
    for (const resolve of [
      () => resolveServeOptions({ bearerToken: token }),
      () => resolveConnectOptions(URL_OK, { bearerToken: token }),
    ]) {
      const error = errorOf(resolve);
      expect(error.code).toBe(AcpRemoteErrorCode.InvalidOption);
      expect(error).toMatchObject({ option: 'bearerToken', received: shown });
      expect(error.message).toBe(
        `bearerToken must be a non-blank string of visible ASCII characters (no spaces or control characters: what an HTTP header can carry), got ${shown}`,
      );
      if (token.trim() !== '') expect(error.message).not.toContain(token.trim());
    }
  });
});

describe('resolveConnectOptions', () => {
  it('redacts credentials of a rejected URL', () => {
    const error = errorOf(() => resolveConnectOptions('ftp://me:secret@host/acp?token=abc', {}));
    expect(error.message).toBe(
      'url must be an http://, https://, ws:// or wss:// URL, e.g. "http://127.0.0.1:8080/acp" (Streamable HTTP) or "ws://127.0.0.1:8080/acp/ws", got "ftp://***@host/acp?token=***"',
    );
  });

  it('records whether credentials are sent, from the token or an Authorization header', () => {
    expect(resolveConnectOptions(URL_OK, {}).sendsCredentials).toBe(false);
    expect(resolveConnectOptions(URL_OK, { bearerToken: 't' }).headers).toEqual({
      Authorization: 'Bearer t',
    });
    expect(resolveConnectOptions(URL_OK, { headers: { authorization: 'Basic x' } }).sendsCredentials).toBe(
      true,
    );
  });

  it('refuses headers that HTTP cannot carry, without echoing the value', () => {
    const error = errorOf(() =>
      resolveConnectOptions(URL_OK, { headers: { 'X-Key': 'secret\r\nInjected: 1' } }),
    );
    expect(error.message).toBe(
      'headers["X-Key"] must be a string an HTTP header can carry, got a value with a line break or a non-Latin-1 character',
    );
    expect(error).toMatchObject({
      option: 'headers',
      received: 'a value with a line break or a non-Latin-1 character',
    });
    expect(errorOf(() => resolveConnectOptions(URL_OK, { headers: { 'bad name': 'x' } }))).toMatchObject({
      code: AcpRemoteErrorCode.InvalidOption,
      option: 'headers',
      message: 'headers name must be an HTTP header name, got "bad name"',
    });
  });

  it('refuses a ca that is not PEM text or Buffers', () => {
    expect(errorOf(() => resolveConnectOptions(URL_OK, { ca: 42 as never })).message).toBe(
      'ca must be PEM text, a Buffer, or a non-empty array of them, got a number',
    );
  });

  it('checks the resume options of a client and defaults resume on', () => {
    expect(errorOf(() => resolveConnectOptions(URL_OK, { resume: 'yes' as never })).message).toBe(
      'resume must be true or false, got "yes"',
    );
    expect(errorOf(() => resolveConnectOptions(URL_OK, { onConnectionEvent: 1 as never })).message).toBe(
      'onConnectionEvent must be a function, got a number',
    );
    expect(errorOf(() => resolveConnectOptions(URL_OK, { resumeBufferBytes: -1 })).message).toBe(
      'resumeBufferBytes must be a positive integer number of bytes, got -1',
    );
    const resolved = resolveConnectOptions(URL_OK, {});
    expect([resolved.resume, resolved.resumeBufferBytes]).toEqual([true, 16 * 1024 * 1024]);
    expect(resolveServeOptions({ resumeWindowMs: 0, logger: silentLogger }).resumeWindowMs).toBe(0);
  });

  it('checks the carry options of a client (on, 60 s by default) and the instance id of a server', () => {
    const resolved = resolveConnectOptions(URL_OK, {});
    expect([resolved.carrySessions, resolved.reconnectTimeoutMs]).toEqual([
      true,
      RemoteDefaults.reconnectTimeoutMs,
    ]);
    expect(errorOf(() => resolveConnectOptions(URL_OK, { carrySessions: 1 as never })).message).toBe(
      'carrySessions must be true or false, got 1',
    );
    expect(errorOf(() => resolveConnectOptions(URL_OK, { reconnectTimeoutMs: -5 })).message).toBe(
      'reconnectTimeoutMs must be a non-negative integer number of milliseconds up to 2147483647, got -5',
    );
    expect(resolveServeOptions({ logger: silentLogger }).instanceId).toBeUndefined();
    expect(resolveServeOptions({ instanceId: 'pod-7_a', logger: silentLogger }).instanceId).toBe('pod-7_a');
    for (const instanceId of ['', 'a.b', 'x'.repeat(33), 'é'])
      expect(errorOf(() => resolveServeOptions({ instanceId, logger: silentLogger })).message).toBe(
        `instanceId must be 1 to 32 characters of A-Z, a-z, 0-9, _ and -, got ${JSON.stringify(instanceId)}`,
      );
  });

  it('keeps the mirror policy apart: hostOwnership is a mirror option', () => {
    expect(errorOf(() => resolveMirrorOptions(URL_OK, { hostOwnership: 'nobody' as never })).message).toBe(
      'hostOwnership must be one of "remote", "client-passthrough", got "nobody"',
    );
    expect(resolveMirrorOptions(URL_OK, {}).hostOwnership).toBe('remote');
  });
});

describe('resolveCommandOptions', () => {
  it.each([
    [
      'an empty command',
      [],
      {},
      'command must be a non-empty array of strings without NUL characters, e.g. ["node", "agent.js"], got []',
    ],
    [
      'a bad stderr mode',
      ['node'],
      { stderr: 'file' },
      'stderr must be one of "inherit", "discard", got "file"',
    ],
    [
      'a zero terminate timeout',
      ['node'],
      { terminateTimeoutMs: 0 },
      'terminateTimeoutMs must be a positive finite number of milliseconds, got 0',
    ],
    [
      'a cwd that is not a directory',
      ['node'],
      { cwd: '/dev/null' },
      'cwd must be an existing directory, got "/dev/null"',
    ],
    [
      'an env name with "="',
      ['node'],
      { env: { 'A=B': 'x' } },
      'env name must be a non-empty name without "=" or NUL, got "A=B"',
    ],
    [
      'an env value with NUL',
      ['node'],
      { env: { SECRET: 'x\u0000y' } },
      'env.SECRET must be a string without NUL characters, got a string with a NUL character',
    ],
  ])('refuses %s', (_case, argv, options, message) => {
    const error = errorOf(() => resolveCommandOptions(argv as string[], options as never));
    expect(error.code).toBe(AcpRemoteErrorCode.InvalidOption);
    expect(error.message).toBe(message);
    // The option's own name, also for an entry inside it (env.SECRET is option "env").
    expect((error as AcpRemoteOptionError).option).toBe(message.split(/[ .]/)[0]);
  });
});
