// Who may use the web client: the one-time login token, the session cookie it is exchanged for, the bearer token
// for other devices, and the Host and Origin rules that keep other sites (and DNS rebinding) out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A refusal: the status, a stable reason (logged) and one line for the person or program that was refused. */
export interface Refusal {
  readonly status: number;
  readonly reason: 'malformed' | 'host' | 'origin' | 'auth';
  readonly message: string;
}

export interface AccessGateOptions {
  /** True when the server listens on a loopback address: then only loopback names (and `allowedHosts`) are valid Hosts. */
  readonly loopback: boolean;
  /** The address the server listens on (always accepted as a Host name). */
  readonly bindHost: string;
  readonly port: number;
  /** Extra Host names, e.g. the public name a reverse proxy forwards. */
  readonly allowedHosts?: readonly string[];
  /** Accepted on every request (`Authorization: Bearer`) and as `?token=` any number of times. */
  readonly bearerToken?: string;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];
const SECURITY_HEADERS = ['host', 'origin', 'authorization', 'cookie'];

/** A fresh random secret, URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality of two secrets (over their digests: no early exit on the length). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The Host header's name without its port, lower-cased (`[::1]` keeps its brackets). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/**
 * The gate every request passes before anything else: a one-time login token that becomes an HttpOnly session
 * cookie, a bearer token (with `--host`), and the Host/Origin checks.
 */
export class AccessGate {
  /** Printed once in the URL; exchanged for a session cookie by the first browser that opens it, then spent. */
  readonly loginToken = randomSecret();
  readonly cookieName: string;
  private loginSpent = false;
  private readonly sessions = new Set<string>();
  private readonly hostNames: Set<string>;

  constructor(private readonly options: AccessGateOptions) {
    // Cookies are not scoped by port: the name carries it, so two servers on one machine keep apart.
    this.cookieName = `acpkit_web_${options.port}`;
    this.hostNames = new Set(
      [...(options.loopback ? LOOPBACK_NAMES : []), options.bindHost, ...(options.allowedHosts ?? [])].map(
        (name) => hostName(name.includes(':') && !name.startsWith('[') ? `[${name}]` : name),
      ),
    );
  }

  /** Host and Origin: a request a browser sent for another site, or through a rebound DNS name, is refused. */
  checkOrigin(request: IncomingMessage): Refusal | undefined {
    for (const name of SECURITY_HEADERS) {
      const count = request.rawHeaders.filter(
        (header, index) => index % 2 === 0 && header.toLowerCase() === name,
      );
      if (count.length > 1) {
        return { status: 400, reason: 'malformed', message: `The ${name} header was sent more than once.` };
      }
    }
    const host = request.headers.host;
    if (host === undefined || host === '') {
      return { status: 400, reason: 'malformed', message: 'The request has no Host header.' };
    }
    if (this.options.loopback && !this.hostNames.has(hostName(host))) {
      return {
        status: 403,
        reason: 'host',
        message: `Host ${JSON.stringify(host)} is not this server's: open the URL acpkit web printed (a DNS name that points here is refused).`,
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
      return { status: 403, reason: 'origin', message: 'Requests from another origin are refused.' };
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      return { status: 403, reason: 'origin', message: 'Requests from another site are refused.' };
    }
    return undefined;
  }

  /** True when the request carries a session cookie this server issued, or the bearer token. */
  isAuthenticated(request: IncomingMessage): boolean {
    const session = this.sessionOf(request);
    if (session !== undefined && this.sessions.has(session)) return true;
    const bearer = /^bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    return (
      bearer !== undefined &&
      this.options.bearerToken !== undefined &&
      sameSecret(bearer, this.options.bearerToken)
    );
  }

  /**
   * Exchanges a `?token=` for a new session (the value of the cookie to set): the login token once, the bearer token
   * any number of times. `undefined` when the token is wrong or already spent.
   */
  exchange(token: string): string | undefined {
    const isLogin = !this.loginSpent && sameSecret(token, this.loginToken);
    const isBearer = this.options.bearerToken !== undefined && sameSecret(token, this.options.bearerToken);
    if (!isLogin && !isBearer) return undefined;
    if (isLogin) this.loginSpent = true;
    const session = randomSecret();
    this.sessions.add(session);
    return session;
  }

  /** The `Set-Cookie` value for a session: HttpOnly (no script reads it), SameSite=Strict, the whole site. */
  cookieFor(session: string, secure: boolean): string {
    return `${this.cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
  }

  private sessionOf(request: IncomingMessage): string | undefined {
    const header = request.headers.cookie;
    if (header === undefined) return undefined;
    for (const part of header.split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === this.cookieName) return value.join('=');
    }
    return undefined;
  }
}
