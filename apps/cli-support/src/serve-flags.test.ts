import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';
import { resolveConnectFlags, resolveServeFlags, SERVE_DEFAULTS } from './serve-flags.js';

const directory = mkdtempSync(join(tmpdir(), 'acpkit-flags-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('resolveServeFlags', () => {
  it('passes only the flags that were given', () => {
    expect(resolveServeFlags({ ...SERVE_DEFAULTS }, {})).toEqual({
      serveOptions: { host: '127.0.0.1', port: 8080, mountPath: '/acp' },
      token: undefined,
      drainGraceMs: 30_000,
    });
  });

  it('turns --metrics into metrics: true and --drain-timeout into the drain grace', () => {
    const { serveOptions, drainGraceMs } = resolveServeFlags(
      { ...SERVE_DEFAULTS, metrics: true, drainTimeout: 0 },
      {},
    );
    expect(serveOptions.metrics).toBe(true);
    expect(drainGraceMs).toBe(0);
  });

  it('maps every flag to its ServeOptions field', () => {
    const { serveOptions, token } = resolveServeFlags(
      {
        host: '0.0.0.0',
        port: 0,
        mountPath: '/agents',
        tokenEnv: 'TOKEN_VARIABLE',
        allowedOrigin: ['https://editor.example'],
        allowedHost: ['dev-box'],
        maxMessageBytes: 1024,
        maxConnections: 3,
        maxHttpConnections: 16,
        maxEventStreams: 100,
        resumeWindow: 0,
        resumeBufferBytes: 65_536,
        maxDetachedSessions: 0,
        maxPendingRequests: 32,
        stallTimeout: 5_000,
        dangerouslyAllowUnauthenticated: true,
      },
      { TOKEN_VARIABLE: 'secret' },
    );
    expect(serveOptions).toEqual({
      host: '0.0.0.0',
      port: 0,
      mountPath: '/agents',
      bearerToken: 'secret',
      allowUnauthenticated: true,
      allowedOrigins: ['https://editor.example'],
      allowedHosts: ['dev-box'],
      maxMessageBytes: 1024,
      maxConnections: 3,
      maxHttpConnections: 16,
      maxEventStreams: 100,
      resumeWindowMs: 0,
      resumeBufferBytes: 65_536,
      maxDetachedSessions: 0,
      maxPendingRequests: 32,
      stallTimeoutMs: 5_000,
    });
    expect(token).toEqual({ token: 'secret', source: 'environment', variable: 'TOKEN_VARIABLE' });
  });

  it('rejects an unusable token', () => {
    expect(() => resolveServeFlags({ ...SERVE_DEFAULTS, tokenEnv: 'MISSING' }, {})).toThrow(CliError);
  });
});

describe('resolveConnectFlags', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('reads the token and the --ca PEM file into connection options', () => {
    const ca = join(directory, 'ca.pem');
    writeFileSync(ca, pem);
    expect(resolveConnectFlags({ tokenEnv: 'T', ca }, { T: 'secret' })).toEqual({
      connectOptions: { bearerToken: 'secret', ca: pem },
      token: { token: 'secret', source: 'environment', variable: 'T' },
    });
    expect(resolveConnectFlags({}, {})).toEqual({ connectOptions: {}, token: undefined });
  });

  it('passes --no-resume, --resume-buffer-bytes and the limits, and nothing for the defaults (resume on)', () => {
    const flags = { resume: false, resumeBufferBytes: 4096, stallTimeout: 0, maxPendingRequests: 8 };
    expect(resolveConnectFlags(flags, {}).connectOptions).toEqual({
      resume: false,
      resumeBufferBytes: 4096,
      stallTimeoutMs: 0,
      maxPendingRequests: 8,
    });
    expect(resolveConnectFlags({ resume: true }, {}).connectOptions).toEqual({});
  });

  it('passes --resume-wire, and nothing for auto', () => {
    expect(resolveConnectFlags({ resumeWire: 'durable-resume' }, {}).connectOptions).toEqual({
      resumeWire: 'durable-resume',
    });
    expect(resolveConnectFlags({ resumeWire: 'auto' }, {}).connectOptions).toEqual({});
  });

  it('refuses a --ca that cannot be read or holds no certificate', () => {
    const notPem = join(directory, 'not-a-certificate');
    writeFileSync(notPem, 'hello');
    for (const ca of [join(directory, 'missing.pem'), notPem]) {
      try {
        resolveConnectFlags({ ca }, {});
        expect.unreachable();
      } catch (error) {
        expect(CliError.isInstance(error) && error.code).toBe(CliErrorCode.InvalidConfiguration);
        expect((error as Error).message).toContain(`--ca ${ca}`);
      }
    }
  });
});
