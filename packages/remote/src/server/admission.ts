import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { SecurityPolicy } from '../options/security-policy.js';
import {
  normalizeOrigin,
  parseHostHeader,
  presentedBearerToken,
  singleHeader,
} from '../shared/http-headers.js';

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
  const expectedDigest = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(presentedDigest, expectedDigest);
}

/**
 * Why the server refused a request or connection: a stable string per refusal point, for logs (and counters).
 * `malformed` 400, `host`/`origin` 403, `path` 404, `method` 405, `auth` 401, `limit` 503 (or a closed socket),
 * `draining` 503 with `Retry-After` (the server drains before it stops), `shutdown` 503, `timeout` 408, `resume` 410
 * (or 400; the resume reason is in the `Acpkit-Resume-Refused` header). The same strings label
 * `acpremote_connections_total` and `acpremote_http_requests_refused_total`.
 */
export type RefusalReason =
  | 'resume'
  | 'malformed'
  | 'host'
  | 'origin'
  | 'path'
  | 'method'
  | 'auth'
  | 'limit'
  | 'draining'
  | 'shutdown'
  | 'timeout';

/** A refused request: the HTTP answer and its reason. */
export interface Refusal {
  readonly ok: false;
  readonly status: number;
  readonly reason: RefusalReason;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

/** Outcome of checking one HTTP request (plain route or upgrade). */
export type RequestDecision = { ok: true } | Refusal;

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
