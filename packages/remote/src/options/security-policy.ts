// The request-level security policy a server resolves from its options (token, allowed origins, allowed Host
// names): what the admission checks compare each request with.
import { isIP } from 'node:net';
import { isLoopbackHost, parseHostHeader } from '../shared/http-headers.js';

/** The request-level security policy of a server, resolved from its options. */
export interface SecurityPolicy {
  /** Expected bearer token, or undefined when authentication is off. */
  readonly bearerToken: string | undefined;
  /** Normalised allowed origins (`scheme://host[:port]`, lower case). */
  readonly allowedOrigins: ReadonlySet<string>;
  /** Lower-case host names accepted in `Host` when bound to loopback; undefined when bound publicly. */
  readonly allowedHostNames: ReadonlySet<string> | undefined;
}

/** Builds the allowed Host names for a loopback bind (undefined for a public bind: no DNS-rebinding check). */
export function buildAllowedHostNames(
  bindHost: string,
  extraHosts: readonly string[],
): ReadonlySet<string> | undefined {
  if (!isLoopbackHost(bindHost)) return undefined;
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const bind = bindHost.trim().toLowerCase();
  names.add(isIP(bind) === 6 ? `[${bind}]` : bind);
  for (const host of extraHosts) {
    const name = parseHostHeader(host.trim());
    if (name) names.add(name);
  }
  return names;
}
