import { domainToUnicode } from 'node:url';

/** What the client shows before asking consent for a URL-mode elicitation. */
export interface UrlReview {
  /** The URL exactly as the agent sent it. */
  readonly url: string;
  /** The host as sent (ASCII; punycode stays punycode), or undefined when the URL does not parse. */
  readonly host?: string;
  /** The host decoded to Unicode when it contains punycode labels (`xn--`). */
  readonly unicodeHost?: string;
  /** Sentences the person should read before consenting. */
  readonly warnings: readonly string[];
}

/**
 * Inspects a URL the agent asks the person to open. It never fetches or opens anything: it parses the string, names
 * the host, warns about punycode hosts (which can imitate other sites), about schemes other than https and about
 * embedded credentials.
 *
 * @example
 * ```ts
 * reviewUrl('https://xn--pple-43d.com/login').warnings[0];
 * // 'The host xn--pple-43d.com is punycode; it displays as аpple.com. Check that it is the site you expect.'
 * ```
 */
export function reviewUrl(url: string): UrlReview {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, warnings: ['The agent sent a URL that does not parse; do not open it.'] };
  }
  const warnings: string[] = [];
  const host = parsed.hostname;
  const isPunycode = host.split('.').some((label) => label.toLowerCase().startsWith('xn--'));
  const unicodeHost = isPunycode ? domainToUnicode(host) : undefined;
  if (isPunycode) {
    warnings.push(
      `The host ${host} is punycode; it displays as ${unicodeHost || '(undecodable)'}. Check that it is the site you expect.`,
    );
  }
  if (parsed.protocol === 'http:') warnings.push('The URL is not encrypted (http, not https).');
  else if (parsed.protocol !== 'https:')
    warnings.push(`The URL uses the ${parsed.protocol} scheme, not https.`);
  if (parsed.username !== '' || parsed.password !== '')
    warnings.push('The URL carries a user name or password.');
  return { url, host: parsed.host, ...(unicodeHost === undefined ? {} : { unicodeHost }), warnings };
}
