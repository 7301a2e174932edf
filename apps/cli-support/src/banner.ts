import type { ResolvedToken } from './token.js';

/** The variable name the banner suggests when the token came from `--bearer-token`. */
export const SUGGESTED_TOKEN_VARIABLE = 'ACPREMOTE_TOKEN';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The start-up banner of `serve`/`expose` (for stderr): the WebSocket URL with the real port, and a ready-to-paste
 * `acpremote mirror` line that references the token's environment variable, never the token itself.
 *
 * @param url - The server's real WebSocket URL (`RemoteServer.url`).
 * @param token - How the token was given, if any.
 * @example
 * ```ts
 * for (const line of formatServeBanner(server.url, token)) process.stderr.write(`${line}\n`);
 * // Serving ACP WebSocket at ws://127.0.0.1:8080/acp/ws
 * // Connect an editor with: acpremote mirror ws://127.0.0.1:8080/acp/ws --token-env ACPREMOTE_TOKEN
 * ```
 */
export function formatServeBanner(url: string, token: ResolvedToken | undefined): string[] {
  const lines = [`Serving ACP WebSocket at ${url}`];
  const variable = token?.variable ?? SUGGESTED_TOKEN_VARIABLE;
  const tokenFlag = token ? ` --token-env ${variable}` : '';
  lines.push(`Connect an editor with: acpremote mirror ${url}${tokenFlag}`);
  if (token?.source === 'flag') {
    lines.push(
      `Put the bearer token in the ${variable} environment variable on the editor's machine before running that line (and prefer --token-env ${variable} here too: command-line tokens are visible in the process list).`,
    );
  }
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    host = '';
  }
  if (WILDCARD_HOSTS.has(host)) {
    lines.push(`Replace ${host} in that URL with this machine's name or address.`);
  }
  if (!token && !isLoopbackHost(host)) {
    lines.push('Warning: no bearer token is set; anyone who can reach this address can drive the agent.');
  }
  return lines;
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
