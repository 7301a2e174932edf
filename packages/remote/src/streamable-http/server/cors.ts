// CORS for the Streamable HTTP endpoint: a page on an allowed origin may use fetch + SSE; nothing without allowedOrigins.
import {
  CONNECTION_ID_HEADER,
  LAST_EVENT_ID_HEADER,
  RESUME_WINDOW_HEADER,
  SESSION_ID_HEADER,
} from '../protocol.js';

/** Request headers a page may send (the preflight allows them). */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  CONNECTION_ID_HEADER,
  SESSION_ID_HEADER,
  'Acp-Protocol-Version',
  LAST_EVENT_ID_HEADER,
].join(', ');
/** Response headers a page may read (the `Acp-*` ids first: without them a page cannot go past `initialize`). */
const EXPOSED_HEADERS = [
  CONNECTION_ID_HEADER,
  SESSION_ID_HEADER,
  RESUME_WINDOW_HEADER,
  'Acpkit-Resume-Refused',
  'Retry-After',
  'WWW-Authenticate',
].join(', ');
const ALLOWED_METHODS = 'GET, POST, DELETE';
/** How long a browser may cache a preflight (s). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The CORS headers of a response to a request from `origin` (its `Origin` header, already checked against the
 * allow-list by the server's Host/Origin rule): the origin echoed with credentials allowed (the TS SDK client sends
 * `credentials: 'include'`) and the `Acp-*` headers exposed. None without an `Origin` (not a browser) or without an
 * allow-list (then no page may use the endpoint, and the Origin rule refuses it anyway).
 */
export function corsResponseHeaders(
  origin: string | undefined,
  allowedOrigins: ReadonlySet<string>,
): Record<string, string> {
  if (origin === undefined || allowedOrigins.size === 0) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/**
 * The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin: 204 with what
 * may be sent. Undefined when CORS is off (no allow-list) or the request is no preflight: the server answers 405.
 */
export function corsPreflight(
  origin: string | undefined,
  requestMethod: string | undefined,
  allowedOrigins: ReadonlySet<string>,
): Record<string, string> | undefined {
  if (origin === undefined || requestMethod === undefined || allowedOrigins.size === 0) return undefined;
  return {
    ...corsResponseHeaders(origin, allowedOrigins),
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}
