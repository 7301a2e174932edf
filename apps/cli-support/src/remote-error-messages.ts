// `@acpkit/remote` errors name the library's options (`bearerToken`, `allowUnauthenticated`, `port`); a person at a
// command line needs the flags. These functions rewrite the errors the CLIs can explain better, keeping the error's
// class and `code` (so the exit code stays what reportError maps it to) and the original as `cause`. They branch on
// the error's code and fields (the option's name, the cause's status or TLS code), never on its message.
import { AcpRemoteError, AcpRemoteErrorCode, AcpRemoteOptionError } from '@acpkit/remote';
import { describeTokenSource, type ResolvedToken } from './token.js';

/** What the serve commands know when their server fails to start. */
export interface ServeErrorContext {
  /** `--host` as given. */
  readonly host: string;
  /** `--port` as given. */
  readonly port: number;
  readonly token: ResolvedToken | undefined;
}

function rewrite(error: AcpRemoteError, message: string): AcpRemoteError {
  return new AcpRemoteError(error.code, message, { cause: error });
}

function hostForDisplay(host: string): string {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  return bare.includes(':') ? `[${bare}]` : bare;
}

function explainTokenRule(
  error: AcpRemoteError,
  token: ResolvedToken | undefined,
): AcpRemoteError | undefined {
  if (!AcpRemoteOptionError.isInstance(error) || error.option !== 'bearerToken') return undefined;
  const source = token ? ` from ${describeTokenSource(token)}` : '';
  return new AcpRemoteOptionError(error.option, error.expected, error.received, {
    label: `The bearer token${source}`,
    cause: error,
  });
}

/**
 * Rewrites a failure of `serve`/`expose` to start in the CLI's words: the public-bind refusal names the token flags
 * and `--dangerously-allow-unauthenticated`, a busy port suggests `--port 0`, a bad token names its flag. Anything
 * else is returned unchanged.
 *
 * @example
 * ```ts
 * const server = await serveAcp(app, options).catch((error) => {
 *   throw explainServeError(error, { host: flags.host, port: flags.port, token });
 * });
 * ```
 */
export function explainServeError(error: unknown, context: ServeErrorContext): unknown {
  if (!AcpRemoteError.isInstance(error)) return error;
  if (error.code === AcpRemoteErrorCode.UnauthenticatedPublicBind) {
    return rewrite(
      error,
      `refusing to serve on non-loopback host ${JSON.stringify(context.host)} without a bearer token. ` +
        'Pass --token-env VAR (or --token-file FILE, or --bearer-token TOKEN), or ' +
        '--dangerously-allow-unauthenticated if something else guards access.',
    );
  }
  if (error.code === AcpRemoteErrorCode.ListenFailed) {
    const address = `${hostForDisplay(context.host)}:${context.port}`;
    const reason = (error.cause as NodeJS.ErrnoException | undefined)?.code;
    if (reason === 'EADDRINUSE') {
      return rewrite(
        error,
        `cannot listen on ${address}: the port is already in use. Choose another --port, or --port 0 to take any free port.`,
      );
    }
    if (reason === 'EACCES') {
      return rewrite(
        error,
        `cannot listen on ${address}: binding this port needs more privileges. Choose a --port above 1023.`,
      );
    }
    if (reason === 'EADDRNOTAVAIL' || reason === 'ENOTFOUND') {
      return rewrite(
        error,
        `cannot listen on ${address}: no local interface has this address. Check --host.`,
      );
    }
    return error;
  }
  return explainTokenRule(error, context.token) ?? error;
}

/** The fields of the `cause` `@acpkit/remote` gives a refused upgrade (`EndpointRefusal`, for either transport). */
interface EndpointRefusalFields {
  readonly status: number;
  readonly credentialsSent: boolean;
  readonly url: string;
}

function upgradeRefusalOf(error: AcpRemoteError): EndpointRefusalFields | undefined {
  const cause = error.cause as Partial<EndpointRefusalFields> | undefined;
  if (typeof cause?.status !== 'number' || typeof cause.url !== 'string') return undefined;
  return { status: cause.status, credentialsSent: cause.credentialsSent === true, url: cause.url };
}

function wrongTokenAdvice(token: ResolvedToken): string {
  if (token.source === 'environment') return `${token.variable} does not hold the server's token`;
  if (token.source === 'file') return `${token.file} does not hold the server's token`;
  return "it is not the server's token";
}

// The TLS codes of a certificate no trusted CA signed (Node's `err.code` of the connection's cause).
const UNTRUSTED_CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

function untrustedCertificateOf(error: AcpRemoteError): Error | undefined {
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return cause instanceof Error && UNTRUSTED_CERTIFICATE_CODES.has(cause.code ?? '') ? cause : undefined;
}

/** The URL as an error may show it: no credentials, no query (a token may sit there). */
function urlForDisplay(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the server';
  }
}

/**
 * Rewrites a failure of `acpremote mirror` / `acpkit run --addr` to connect in the CLI's words: a missing token names
 * `--token-env`, a wrong one names the flag it came from, a bad token names its flag, an untrusted certificate names
 * `--ca`. Anything else is returned unchanged (the library's own message already says what happened: a 403 check, a
 * 404 with the right endpoint).
 *
 * @example
 * ```ts
 * const exitCode = await runMirror(url, options).catch((error) => {
 *   throw explainMirrorError(error, token, url);
 * });
 * ```
 */
export function explainMirrorError(error: unknown, token: ResolvedToken | undefined, url: string): unknown {
  if (!AcpRemoteError.isInstance(error)) return error;
  const refusal = upgradeRefusalOf(error);
  if (error.code === AcpRemoteErrorCode.AuthenticationFailed && refusal?.status === 401) {
    if (token === undefined) {
      return rewrite(
        error,
        `the server at ${refusal.url} requires a bearer token (HTTP 401). Pass --token-env VAR naming the ` +
          "environment variable that holds the server's token (or --token-file FILE).",
      );
    }
    return rewrite(
      error,
      `the server at ${refusal.url} refused the bearer token from ${describeTokenSource(token)} (HTTP 401): ` +
        `${wrongTokenAdvice(token)}.`,
    );
  }
  const untrusted =
    error.code === AcpRemoteErrorCode.ConnectionFailed ? untrustedCertificateOf(error) : undefined;
  if (untrusted !== undefined) {
    return rewrite(
      error,
      `cannot connect to ${urlForDisplay(url)}: ${untrusted.message}; if the server's certificate comes from a ` +
        'private CA, pass its certificate with --ca FILE (or set NODE_EXTRA_CA_CERTS=FILE).',
    );
  }
  return explainTokenRule(error, token) ?? error;
}
