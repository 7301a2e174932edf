// Admission: every check a request, WebSocket upgrade or Streamable HTTP `initialize` passes before the server answers it (once-only security
// headers, Host and Origin, path, method, bearer token, resume, drain, connection cap), each refusal with its HTTP
// status and a stable reason. Pure decisions: the server logs, counts and answers them.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ServerPaths } from '../options/mount-path.js';
import type { SecurityPolicy } from '../options/security-policy.js';
import { type Refusal, type RequestDecision, refuse } from '../seams/refusal.js';
import { clientIdentity } from '../sessions/session-keeper.js';
import { RemoteProtocol } from '../shared/constants.js';
import {
  normalizeOrigin,
  parseHostHeader,
  presentedBearerToken,
  singleHeader,
} from '../shared/http-headers.js';
import { CONNECTION_ID_HEADER } from '../streamable-http/protocol.js';
import type { DurableSockets } from '../websocket/durable/durable-sockets.js';
import {
  REFUSAL_EXPLANATIONS,
  RESUME_REFUSED_HEADER,
  RESUME_SUBPROTOCOL,
  type ResumeRefusalReason,
  readResumeRequest,
} from '../websocket/resume/resume-protocol.js';
import type { ResumeRegistry } from '../websocket/resume/resume-registry.js';
import type { AdmittedUpgrade } from '../websocket/websocket-acceptor.js';

/**
 * Compares a presented bearer token with the expected one in constant time: both are hashed with SHA-256 first, so
 * the comparison has no early exit on length or content.
 *
 * @example
 * ```ts
 * tokensMatch('secret', 'secret'); // true
 * ```
 */
export function tokensMatch(presented: string, expected: string): boolean {
  const presentedDigest = createHash('sha256').update(presented, 'utf8').digest();
  return timingSafeEqual(presentedDigest, expectedDigest(expected));
}

/**
 * The digests of expected tokens: a server has one token and checks it on every request (each Streamable HTTP
 * message is a request), so its digest is computed once. Bounded: a server holds one, tests a few.
 */
const expectedDigests = new Map<string, Buffer>();

function expectedDigest(expected: string): Buffer {
  let digest = expectedDigests.get(expected);
  if (digest === undefined) {
    digest = createHash('sha256').update(expected, 'utf8').digest();
    if (expectedDigests.size >= 16) expectedDigests.clear();
    expectedDigests.set(expected, digest);
  }
  return digest;
}

const BAD_REQUEST: Refusal = { ok: false, status: 400, reason: 'malformed', body: 'bad request\n' };

// Headers a security decision reads: a second copy would be ignored by Node (first wins) or joined, so a
// "good then bad" pair could pass a check the other copy fails. Any duplicate is refused.
const SECURITY_HEADERS = new Set(['host', 'authorization', 'origin']);

/**
 * Refuses (400) a request that carries `Host`, `Authorization` or `Origin` more than once. Reads the raw headers,
 * because Node keeps only the first `Host`/`Authorization` in `request.headers`.
 */
export function checkSingleSecurityHeaders(rawHeaders: readonly string[]): RequestDecision {
  const seen = new Set<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] ?? '').toLowerCase();
    if (!SECURITY_HEADERS.has(name)) continue;
    if (seen.has(name)) return BAD_REQUEST;
    seen.add(name);
  }
  return { ok: true };
}

/**
 * Checks the Host (DNS rebinding) and Origin (cross-site WebSocket hijacking) rules that apply to every route.
 * Malformed headers give 400, never an exception.
 */
export function checkHostAndOrigin(headers: IncomingHttpHeaders, policy: SecurityPolicy): RequestDecision {
  const host = singleHeader(headers, 'host');
  if (host === null || host === undefined) return BAD_REQUEST;
  const hostName = parseHostHeader(host);
  if (hostName === undefined) return BAD_REQUEST;
  if (policy.allowedHostNames && !policy.allowedHostNames.has(hostName)) {
    return { ok: false, status: 403, reason: 'host', body: 'forbidden host\n' };
  }
  const origin = singleHeader(headers, 'origin');
  if (origin === null) return BAD_REQUEST;
  if (origin !== undefined) {
    const normalized = normalizeOrigin(origin);
    if (normalized === undefined) return BAD_REQUEST;
    if (!policy.allowedOrigins.has(normalized)) {
      return { ok: false, status: 403, reason: 'origin', body: 'forbidden origin\n' };
    }
  }
  return { ok: true };
}

/** Checks the `Authorization: Bearer <token>` header against the server's token. */
export function checkBearer(headers: IncomingHttpHeaders, policy: SecurityPolicy): RequestDecision {
  if (policy.bearerToken === undefined) return { ok: true };
  const presented = presentedBearerToken(headers);
  // Always run the digest comparison so a missing header costs the same as a wrong one.
  const matches = tokensMatch(presented ?? '', policy.bearerToken) && presented !== undefined;
  if (matches) return { ok: true };
  return {
    ok: false,
    status: 401,
    reason: 'auth',
    body: 'missing or invalid bearer token\n',
    headers: { 'WWW-Authenticate': 'Bearer realm="acpremote"' },
  };
}

/** What the server's state means for a new WebSocket upgrade. */
export type AdmissionPhase = 'open' | 'draining' | 'shutting-down';

/** The fixed rules of one server's admission, from its resolved options. */
export interface AdmissionRules {
  readonly policy: SecurityPolicy;
  readonly paths: ServerPaths;
  readonly maxConnections: number;
  /** Whether `/metrics` is served (metrics on). */
  readonly metricsServed: boolean;
  /** The server's resume registry; undefined when it offers no resume. */
  readonly resumes: ResumeRegistry | undefined;
  /** The RFD WebSocket connections a `stream/resume` can take over; undefined when none are kept. */
  readonly durable?: DurableSockets | undefined;
}

/**
 * The outcome of checking an upgrade: a refusal, or what the WebSocket acceptor is to do with it (a new connection,
 * a resume, an RFD WebSocket let in because it names a connection: {@link AdmittedUpgrade}).
 */
export type UpgradeDecision = Refusal | AdmittedUpgrade;

/** The path of a request (no query or fragment); undefined for a request target that is not a path. */
export function requestPath(request: IncomingMessage): string | undefined {
  const raw = request.url ?? '';
  if (!raw.startsWith('/')) return undefined;
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

/** The subprotocols a request offers (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  return typeof header === 'string' ? header.split(',').map((protocol) => protocol.trim()) : [];
}

function refuseResume(reason: ResumeRefusalReason): Refusal {
  return refuse(
    reason === 'invalid' ? 400 : 410,
    'resume',
    `resume refused: ${reason}: ${REFUSAL_EXPLANATIONS[reason]}\n`,
    { [RESUME_REFUSED_HEADER]: reason },
  );
}

/**
 * A resume request (its headers present): the session to attach, or why not. Skips the connection cap (the
 * session already counts) and the drain (the session is this instance's to finish).
 */
function decideResume(
  request: IncomingMessage,
  resumes: ResumeRegistry | undefined,
): UpgradeDecision | undefined {
  const resumeRequest = readResumeRequest(request.headers);
  if (resumeRequest.kind === 'none') return undefined;
  const refuseCounted = (reason: ResumeRefusalReason) => {
    resumes?.countRefusal(reason);
    return refuseResume(reason);
  };
  if (resumeRequest.kind === 'invalid' || !offeredProtocols(request).includes(RESUME_SUBPROTOCOL))
    return refuseCounted('invalid');
  // Resume off: this server keeps no session for anyone.
  if (resumes === undefined) return refuseResume('unknown');
  const verdict = resumes.check(resumeRequest.token, resumeRequest.received, clientIdentity(request.headers));
  if (!verdict.ok) return refuseResume(verdict.reason);
  return { ok: true, resume: { session: verdict.session, received: resumeRequest.received } };
}

/**
 * Every refusal point of a WebSocket upgrade, in order. `connections` counts open connections and upgrades in
 * progress (against `maxConnections`).
 */
export function decideUpgrade(
  request: IncomingMessage,
  rules: AdmissionRules,
  phase: AdmissionPhase,
  connections: number,
): UpgradeDecision {
  if (phase === 'shutting-down') return refuse(503, 'shutdown', 'server is shutting down\n');
  const common = checkHostAndHeaders(request, rules.policy);
  if (!common.ok) return common;
  const path = requestPath(request);
  if (path !== rules.paths.websocket && path !== rules.paths.metadata)
    return refuse(404, 'path', 'not found\n');
  const bearer = checkBearer(request.headers, rules.policy);
  if (!bearer.ok) return bearer;
  const resume = decideResume(request, rules.resumes);
  if (resume !== undefined) return resume;
  // An RFD WebSocket naming a connection this server keeps for the same client comes to resume it (its first message
  // says so): like a resume above, it skips the drain and the connection cap (the connection already counts).
  const named = request.headers[CONNECTION_ID_HEADER.toLowerCase()];
  if (
    path === rules.paths.metadata &&
    typeof named === 'string' &&
    rules.durable?.holds(named, clientIdentity(request.headers)) === true
  )
    return { ok: true, named: true };
  return decideNewConnection(rules, phase, connections);
}

/**
 * The refusal points of a new connection once its request passed the token check (a WebSocket upgrade, or a
 * Streamable HTTP `initialize`): the server's phase, then the connection cap. `connections` counts open connections
 * and those being opened.
 */
export function decideNewConnection(
  rules: AdmissionRules,
  phase: AdmissionPhase,
  connections: number,
): RequestDecision {
  if (phase === 'shutting-down') return refuse(503, 'shutdown', 'server is shutting down\n');
  // After the token: only a client that may connect learns that this instance drains.
  if (phase === 'draining') {
    return refuse(503, 'draining', 'server is draining; connect again to reach another instance\n', {
      'Retry-After': String(RemoteProtocol.drainRetryAfterSeconds),
    });
  }
  if (connections >= rules.maxConnections) return refuse(503, 'limit', 'too many connections\n');
  return { ok: true };
}

/** The methods of the mount path: the metadata document and ACP's Streamable HTTP endpoint share it. */
function endpointMethods(policy: SecurityPolicy): string {
  return policy.allowedOrigins.size > 0 ? 'GET, HEAD, POST, DELETE, OPTIONS' : 'GET, HEAD, POST, DELETE';
}

/**
 * Every refusal point of a plain HTTP request, in order: health, readiness and metrics take `GET`/`HEAD`; the mount
 * path (the metadata document and the Streamable HTTP endpoint) also `POST` and `DELETE`, and `OPTIONS` when CORS is
 * on (`allowedOrigins`). The token is checked on everything but health, readiness and the CORS preflight (a
 * browser sends no credentials on it); what the endpoint itself refuses is decided in streamable-http/endpoint.ts.
 */
export function decideRequest(request: IncomingMessage, rules: AdmissionRules): RequestDecision {
  const common = checkHostAndHeaders(request, rules.policy);
  if (!common.ok) return common;
  const path = requestPath(request);
  const method = request.method ?? '';
  if (path === rules.paths.metadata) {
    const allowed = endpointMethods(rules.policy);
    if (!allowed.split(', ').includes(method))
      return refuse(405, 'method', 'method not allowed\n', { Allow: allowed });
    return method === 'OPTIONS' ? { ok: true } : checkBearer(request.headers, rules.policy);
  }
  const isMetrics = rules.metricsServed && path === RemoteProtocol.metricsPath;
  if (path !== rules.paths.health && path !== rules.paths.readiness && !isMetrics) {
    return refuse(404, 'path', 'not found\n');
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return refuse(405, 'method', 'method not allowed\n', { Allow: 'GET, HEAD' });
  }
  // Metrics describe the traffic: they need the token when one is configured.
  return isMetrics ? checkBearer(request.headers, rules.policy) : { ok: true };
}

/** The checks every route and upgrade passes first: once-only security headers, then Host and Origin. */
function checkHostAndHeaders(request: IncomingMessage, policy: SecurityPolicy): RequestDecision {
  const single = checkSingleSecurityHeaders(request.rawHeaders);
  if (!single.ok) return single;
  return checkHostAndOrigin(request.headers, policy);
}
