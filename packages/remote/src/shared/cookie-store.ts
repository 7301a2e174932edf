// The client's cookie store: what a server or its load balancer sets is sent back on every request of a connection.

/**
 * Where a client keeps the cookies its server sets (load-balancer affinity, as the RFD requires of clients). Pass
 * one object to several connections (`ConnectOptions.cookieStore`) to keep the affinity across reconnects.
 *
 * @example
 * ```ts
 * const cookieStore = new MemoryCookieStore();
 * await connectAcp('https://agents.example/acp', { cookieStore });
 * ```
 */
export interface CookieStore {
  /** Takes the `Set-Cookie` header values of a response. */
  store(setCookie: readonly string[]): void;
  /** The `Cookie` header to send, or undefined when there is nothing to send. */
  header(): string | undefined;
}

/** At most this many cookies are kept (a server that sets more is misbehaving; the oldest go first). */
const MAX_COOKIES = 64;
/** At most this many bytes per cookie (name and value), as browsers bound them. */
const MAX_COOKIE_BYTES = 4096;

/**
 * A {@link CookieStore} in memory, as both ACP SDKs keep one: `name=value` pairs, a later value replacing an earlier
 * one of the same name; attributes (`Path`, `Expires`, `Domain`, ...) are ignored, because every request of a
 * connection goes to one endpoint. A `Max-Age` of 0 or less removes the cookie.
 *
 * @example
 * ```ts
 * const store = new MemoryCookieStore();
 * store.store(['route=b2; Path=/; HttpOnly']);
 * store.header(); // 'route=b2'
 * ```
 */
export class MemoryCookieStore implements CookieStore {
  private readonly cookies = new Map<string, string>();

  store(setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const [pair = '', ...attributes] = line.split(';');
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (name === '' || /[\s,;=]/.test(name) || /[\s,;]/.test(value)) continue;
      if (name.length + value.length > MAX_COOKIE_BYTES) continue;
      this.cookies.delete(name);
      if (attributes.some(isExpiring)) continue;
      this.cookies.set(name, value);
      if (this.cookies.size > MAX_COOKIES) this.cookies.delete(this.cookies.keys().next().value as string);
    }
  }

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Forgets every cookie. */
  clear(): void {
    this.cookies.clear();
  }
}

function isExpiring(attribute: string): boolean {
  const [name = '', value = ''] = attribute.split('=');
  return name.trim().toLowerCase() === 'max-age' && Number(value.trim()) <= 0;
}

/**
 * The `Cookie` header a request sends: the store's cookies, then those the caller put in its own `Cookie` header
 * (the caller's win on a shared name). Undefined when neither has any.
 */
export function mergeCookieHeader(
  store: CookieStore | undefined,
  callerHeader: string | undefined,
): string | undefined {
  const cookies = new Map<string, string>();
  for (const header of [store?.header(), callerHeader]) {
    for (const pair of header?.split(';') ?? []) {
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      cookies.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
    }
  }
  if (cookies.size === 0) return undefined;
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}
