// Reading what HTTP requests and bind addresses say: a once-only header, the Host name, the Origin, the bearer
// token, and whether a host is loopback. Shared by the servers' admission, resume, the options and the client.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether a bind host (or Host header name) is loopback: `localhost`, `127.0.0.0/8` or `::1`.
 *
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0');   // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase();
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return true;
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || bare === '::ffff:127.0.0.1';
  return false;
}

/** A header that may appear once: its value, undefined when absent, null when repeated. */
export function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined | null {
  const value = headers[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 1 ? (value[0] ?? null) : null;
  return value;
}

/** Splits a Host header into its lower-case name (IPv6 keeps brackets); undefined when malformed. */
export function parseHostHeader(value: string): string | undefined {
  if (value.length === 0 || value.length > 255 || /[\s/?#@\\]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.pathname !== '/') return undefined;
  return url.hostname.toLowerCase();
}

/**
 * Normalises an origin (`Origin` header or `allowedOrigins` entry) to `scheme://host[:port]` in lower case;
 * `null` stays `null`. Undefined when malformed.
 */
export function normalizeOrigin(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === 'null') return 'null';
  if (trimmed.length === 0 || trimmed.length > 2048 || /\s/.test(trimmed)) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.origin === 'null') return undefined;
  return url.origin.toLowerCase();
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 7235), if there is one. */
export function presentedBearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = singleHeader(headers, 'authorization');
  return typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header)?.[1] : undefined;
}
