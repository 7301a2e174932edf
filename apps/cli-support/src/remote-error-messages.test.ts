import { AcpRemoteError, AcpRemoteErrorCode, AcpRemoteOptionError } from '@acpkit/remote';
import { describe, expect, it } from 'vitest';
import { explainMirrorError, explainServeError } from './remote-error-messages.js';

const context = { host: '0.0.0.0', port: 8080, token: undefined };
const URL = 'ws://host:1/acp/ws';

function listenFailed(code: string): AcpRemoteError {
  return new AcpRemoteError(AcpRemoteErrorCode.ListenFailed, `cannot listen: ${code}`, {
    cause: Object.assign(new Error(code), { code }),
  });
}

function refused(status: number, credentialsSent: boolean): AcpRemoteError {
  return new AcpRemoteError(AcpRemoteErrorCode.AuthenticationFailed, 'library message', {
    cause: { status, credentialsSent, url: 'ws://host:1/acp/ws', body: '' },
  });
}

describe('explainServeError', () => {
  it('names the CLI flags for a public bind without a token, keeping code and cause', () => {
    const original = new AcpRemoteError(AcpRemoteErrorCode.UnauthenticatedPublicBind, 'set bearerToken');
    const explained = explainServeError(original, context) as AcpRemoteError;
    expect(explained.code).toBe(AcpRemoteErrorCode.UnauthenticatedPublicBind);
    expect(explained.cause).toBe(original);
    expect(explained.message).toBe(
      'refusing to serve on non-loopback host "0.0.0.0" without a bearer token. Pass --token-env VAR (or ' +
        '--token-file FILE, or --bearer-token TOKEN), or --dangerously-allow-unauthenticated if something else ' +
        'guards access.',
    );
  });

  it.each([
    ['EADDRINUSE', 'the port is already in use. Choose another --port, or --port 0 to take any free port.'],
    ['EACCES', 'binding this port needs more privileges. Choose a --port above 1023.'],
    ['EADDRNOTAVAIL', 'no local interface has this address. Check --host.'],
  ])('explains %s with the flag to change', (code, advice) => {
    const explained = explainServeError(listenFailed(code), { ...context, host: '[::1]' }) as AcpRemoteError;
    expect(explained.code).toBe(AcpRemoteErrorCode.ListenFailed);
    expect(explained.message).toBe(`cannot listen on [::1]:8080: ${advice}`);
  });

  it('names where an unusable token came from, by the option field, keeping class, fields and cause', () => {
    const original = new AcpRemoteOptionError('bearerToken', 'visible ASCII', 'a blank string');
    const token = { token: 't', source: 'environment', variable: 'MY_TOKEN' } as const;
    const explained = explainServeError(original, { ...context, token });
    expect(AcpRemoteOptionError.isInstance(explained)).toBe(true);
    expect(explained).toMatchObject({
      code: AcpRemoteErrorCode.InvalidOption,
      option: 'bearerToken',
      cause: original,
      message: 'The bearer token from --token-env MY_TOKEN must be visible ASCII, got a blank string',
    });
  });

  it('leaves every other error alone, whatever its message says', () => {
    const other = new AcpRemoteOptionError('mountPath', 'a path', '"?"');
    expect(explainServeError(other, context)).toBe(other);
    // Only the option field counts: a message that happens to start with the option's name is not rewritten.
    const lookalike = new AcpRemoteError(
      AcpRemoteErrorCode.InvalidOption,
      'bearerToken must be visible ASCII',
    );
    expect(explainServeError(lookalike, context)).toBe(lookalike);
    const plain = new Error('boom');
    expect(explainServeError(plain, context)).toBe(plain);
    expect(explainServeError(listenFailed('EOTHER'), context)).toBeInstanceOf(AcpRemoteError);
  });
});

describe('explainMirrorError', () => {
  it('tells a missing token (naming --token-env) from a wrong one (naming its source)', () => {
    expect((explainMirrorError(refused(401, false), undefined, URL) as Error).message).toBe(
      'the server at ws://host:1/acp/ws requires a bearer token (HTTP 401). Pass --token-env VAR naming the ' +
        "environment variable that holds the server's token (or --token-file FILE).",
    );
    expect(
      (
        explainMirrorError(
          refused(401, true),
          {
            token: 't',
            source: 'environment',
            variable: 'ACP_TOKEN',
          },
          URL,
        ) as Error
      ).message,
    ).toBe(
      "the server at ws://host:1/acp/ws refused the bearer token from --token-env ACP_TOKEN (HTTP 401): ACP_TOKEN does not hold the server's token.",
    );
    expect(
      (explainMirrorError(refused(401, true), { token: 't', source: 'file', file: '/run/t' }, URL) as Error)
        .message,
    ).toBe(
      "the server at ws://host:1/acp/ws refused the bearer token from --token-file /run/t (HTTP 401): /run/t does not hold the server's token.",
    );
  });

  it('names --ca for a certificate from a private CA, by the TLS code of the cause', () => {
    const cause = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    const untrusted = new AcpRemoteError(AcpRemoteErrorCode.ConnectionFailed, 'library message', { cause });
    const explained = explainMirrorError(untrusted, undefined, 'wss://me:secret@h/acp/ws?token=abc') as Error;
    expect(explained).toMatchObject({ code: AcpRemoteErrorCode.ConnectionFailed, cause: untrusted });
    expect(explained.message).toBe(
      "cannot connect to wss://h/acp/ws: self-signed certificate; if the server's certificate comes from a private CA, pass its certificate with --ca FILE (or set NODE_EXTRA_CA_CERTS=FILE).",
    );
    const refusedConnection = new AcpRemoteError(AcpRemoteErrorCode.ConnectionFailed, 'trust that CA', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(explainMirrorError(refusedConnection, undefined, URL)).toBe(refusedConnection);
  });

  it('keeps the library message for other refusals', () => {
    const forbidden = refused(403, true);
    expect(explainMirrorError(forbidden, undefined, URL)).toBe(forbidden);
  });
});
