import { describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { resolveServeFlags, SERVE_DEFAULTS } from './serve-flags.js';

describe('resolveServeFlags', () => {
  it('passes only the flags that were given', () => {
    expect(resolveServeFlags({ ...SERVE_DEFAULTS }, {})).toEqual({
      serveOptions: { host: '127.0.0.1', port: 8080, mountPath: '/acp' },
      token: undefined,
    });
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
    });
    expect(token).toEqual({ token: 'secret', source: 'environment', variable: 'TOKEN_VARIABLE' });
  });

  it('rejects an unusable token', () => {
    expect(() => resolveServeFlags({ ...SERVE_DEFAULTS, tokenEnv: 'MISSING' }, {})).toThrow(CliError);
  });
});
