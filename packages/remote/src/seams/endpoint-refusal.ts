// Why a client could not open its connection, in the same words whichever transport it dialled: the `cause` of a
// refused upgrade or probe, the message of a credentials refusal (401/403), and a network failure's hint.
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { redactUrls } from '../shared/logger.js';
import type { Transport } from '../shared/transport.js';

/** The transport a refused client dialled. */
export type RefusedTransport = Transport;

/**
 * The `cause` of an `AcpRemoteError` for an endpoint that refused the client (a WebSocket upgrade or a Streamable HTTP
 * request): the HTTP status and whether credentials were sent, so a caller (the CLIs) can say "missing" or "wrong"
 * token in its own words.
 */
export class EndpointRefusal extends Error {
  override readonly name = 'EndpointRefusal';
  constructor(
    /** The transport that was refused. */
    readonly transport: RefusedTransport,
    /** The HTTP status of the refusal. */
    readonly status: number,
    /** Whether the request carried credentials (a bearer token or an `Authorization` header). */
    readonly credentialsSent: boolean,
    /** The start of the server's answer, printable ASCII only (e.g. `forbidden origin`). */
    readonly body: string,
    /** The URL that was refused, credentials and query values redacted. */
    readonly url: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body}` : ''}`);
  }
}

/**
 * The message of a 401 or 403 refusal, whichever transport met it (undefined for other statuses): a token the server
 * does not take, a missing one, or a refusal of the Origin or Host (the 403's body says which).
 */
export function credentialRefusal(refusal: EndpointRefusal): string | undefined {
  const { status, url, credentialsSent, body } = refusal;
  if (status === 401) {
    return credentialsSent
      ? `the server at ${url} refused the bearer token (HTTP 401): it is not the server's token`
      : `the server at ${url} requires a bearer token (HTTP 401); set bearerToken`;
  }
  if (status === 403)
    return `the server at ${url} refused the connection (HTTP 403${body ? `: ${body}` : ''})`;
  return undefined;
}

const UNTRUSTED_CERTIFICATE = /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED/;
/** Ends a connection error caused by an untrusted certificate (the CLIs replace it with their flag). */
const PRIVATE_CA_HINT =
  "if the server's certificate comes from a private CA, trust that CA with the ca option or NODE_EXTRA_CA_CERTS";

/** A network failure before any answer (refused, reset, DNS, TLS): `CONNECTION_FAILED`, with the way forward. */
export function connectionFailure(shownUrl: string, error: Error): AcpRemoteError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // A certificate no trusted CA signed: the way forward is to trust the server's (private) CA.
  const hint = UNTRUSTED_CERTIFICATE.test(code) ? `; ${PRIVATE_CA_HINT}` : '';
  return new AcpRemoteError(
    AcpRemoteErrorCode.ConnectionFailed,
    `cannot connect to ${shownUrl}: ${redactUrls(error.message)}${hint}`,
    { cause: error },
  );
}
