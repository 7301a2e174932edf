import { isLoopbackHost } from '@acpkit/remote/internal';
import { type ResolvedToken, STDIN_TOKEN_FILES } from './token.js';

/** The variable name the banner suggests when the token came from `--bearer-token`. */
export const SUGGESTED_TOKEN_VARIABLE = 'ACPREMOTE_TOKEN';

/** How each CLI mirrors a remote endpoint to stdio: the line the banner suggests is the same CLI's. */
const MIRROR_COMMANDS: Readonly<Record<string, string>> = {
  acpkit: 'acpkit run --addr',
  acpremote: 'acpremote mirror',
};

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The start-up banner of `serve`/`expose` (for stderr): the WebSocket URL with the real port, the endpoint of ACP's
 * standard transport (Streamable HTTP, and the RFD WebSocket at the same path) when given, and a ready-to-paste
 * mirror line of the same CLI (`acpkit run --addr`, `acpremote mirror`) that references the token's environment
 * variable or file, never the token itself.
 *
 * @param url - The server's real WebSocket URL (`RemoteServer.url`).
 * @param token - How the token was given, if any.
 * @param programName - The CLI serving (`acpkit` or `acpremote`, the default).
 * @param endpoint - The server's Streamable HTTP endpoint (`RemoteServer.endpoint`).
 * @example
 * ```ts
 * for (const line of formatServeBanner(server.url, token, 'acpremote', server.endpoint)) process.stderr.write(`${line}\n`);
 * // Serving ACP WebSocket at ws://127.0.0.1:8080/acp/ws
 * // Serving ACP Streamable HTTP at http://127.0.0.1:8080/acp (and the RFD WebSocket at ws://127.0.0.1:8080/acp)
 * // Connect an editor with: acpremote mirror ws://127.0.0.1:8080/acp/ws --token-env ACPREMOTE_TOKEN
 * ```
 */
export function formatServeBanner(
  url: string,
  token: ResolvedToken | undefined,
  programName = 'acpremote',
  endpoint?: string,
): string[] {
  const lines = [`Serving ACP WebSocket at ${url}`];
  if (endpoint !== undefined) {
    lines.push(
      `Serving ACP Streamable HTTP at ${endpoint} (and the RFD WebSocket at ${endpoint.replace(/^http/, 'ws')})`,
    );
  }
  const variable = token?.variable ?? SUGGESTED_TOKEN_VARIABLE;
  // A token read from stdin has no name to repeat: suggest a variable, as for --bearer-token.
  const fromFile = token?.source === 'file' && !STDIN_TOKEN_FILES.has(token.file ?? '');
  let tokenFlag = '';
  if (fromFile) tokenFlag = ` --token-file ${token?.file}`;
  else if (token) tokenFlag = ` --token-env ${variable}`;
  const mirrorCommand = MIRROR_COMMANDS[programName] ?? MIRROR_COMMANDS.acpremote;
  lines.push(`Connect an editor with: ${mirrorCommand} ${url}${tokenFlag}`);
  if (token?.warning) lines.push(token.warning);
  if (token?.source === 'flag') {
    lines.push(
      `Put the bearer token in the ${variable} environment variable on the editor's machine before running that line (and prefer --token-file or --token-env here too: command-line tokens are visible in the process list).`,
    );
  } else if (token?.source === 'file' && !fromFile) {
    lines.push(
      `Put the bearer token in the ${variable} environment variable on the editor's machine before running that line.`,
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
