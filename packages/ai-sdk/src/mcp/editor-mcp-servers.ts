// editorMcpServers(): the `mcp` option of createAiSdkAgent. Connects the MCP servers the editor passes for a session
// (at most maxServers, each within connectTimeoutMs), offers their tools under `server__tool` names, and closes them
// with the session. Lives in the `@acpkit/ai-sdk/mcp` subpath: only it loads the MCP SDK.
import { invalidOption } from '@acpkit/errors';
import type { McpServer } from '@agentclientprotocol/sdk';
import type { ToolSet } from 'ai';
import { McpConnection, type McpConnectionSettings } from './mcp-connection.js';
import type { AiSdkMcpServers, McpSessionConnection } from './mcp-option.js';
import type { McpToolInfo } from './mcp-tools.js';

/**
 * Options of {@link editorMcpServers}.
 *
 * @example
 * ```ts
 * import type { EditorMcpServersOptions } from '@acpkit/ai-sdk/mcp';
 *
 * const options: EditorMcpServersOptions = { connectTimeoutMs: 5_000, maxServers: 4, approve: 'all' };
 * ```
 */
export interface EditorMcpServersOptions {
  /** A server that has not connected and listed its tools within this time is reported and skipped. Default 10 000. */
  readonly connectTimeoutMs?: number | undefined;
  /** A tool call that takes longer fails. Default 120 000. */
  readonly callTimeoutMs?: number | undefined;
  /** Servers connected per session (the rest are reported and skipped). Default 10. */
  readonly maxServers?: number | undefined;
  /** Tools offered per server. Default 100. */
  readonly maxToolsPerServer?: number | undefined;
  /** The model gets at most this many characters of a tool's result. Default 100 000. */
  readonly maxResultChars?: number | undefined;
  /** One message from a server may hold at most this many bytes (a larger one fails that server). Default 8 MiB. */
  readonly maxResultBytes?: number | undefined;
  /**
   * Which calls ask the user first: `'all'`, `'none'`, or `'unless-read-only'` (tools annotated `readOnlyHint`
   * run without asking). Or a function of the server name and tool. Default `'unless-read-only'`.
   */
  readonly approve?:
    | 'all'
    | 'none'
    | 'unless-read-only'
    | ((server: string, tool: { readonly name: string; readonly annotations?: unknown }) => boolean)
    | undefined;
  /** Transports besides stdio (advertised in `mcpCapabilities`). Default both. */
  readonly transports?:
    | { readonly http?: boolean | undefined; readonly sse?: boolean | undefined }
    | undefined;
}

const DEFAULTS = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 120_000,
  maxServers: 10,
  maxToolsPerServer: 100,
  maxResultChars: 100_000,
  maxResultBytes: 8 * 1024 * 1024,
} as const;

function positive(name: keyof typeof DEFAULTS, value: unknown): number {
  if (value === undefined) return DEFAULTS[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(`editorMcpServers ${name}`, 'a positive integer', value);
  }
  return value;
}

function approvalRule(
  approve: EditorMcpServersOptions['approve'],
): (server: string, tool: McpToolInfo) => boolean {
  if (typeof approve === 'function') return approve;
  if (approve === 'all') return () => true;
  if (approve === 'none') return () => false;
  if (approve === undefined || approve === 'unless-read-only')
    return (_, tool) => tool.annotations?.readOnlyHint !== true;
  throw invalidOption('editorMcpServers approve', "'all', 'none', 'unless-read-only' or a function", approve);
}

class SessionServers implements McpSessionConnection {
  readonly tools: ToolSet;
  readonly problems: readonly string[];
  readonly #connections: readonly McpConnection[];

  constructor(connections: readonly McpConnection[], skipped: readonly string[]) {
    this.#connections = connections;
    this.tools = Object.assign({}, ...connections.map((connection) => connection.tools)) as ToolSet;
    this.problems = [
      ...connections.flatMap((connection) => (connection.problem === undefined ? [] : [connection.problem])),
      ...skipped,
    ];
  }

  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }
}

/**
 * Connects the MCP servers the editor passes in `session/new` / `session/load` (stdio, Streamable HTTP and SSE, with
 * the MCP SDK) and gives the model their tools, named `server__tool`. Calls go through the agent's approval flow
 * (see `approve`); a server that fails to start, times out or crashes is reported to the user at the start of the
 * next turn and the session goes on without it. Every server closes with its session, its connection or the
 * process (a stdio server's process is ended). Needs the optional peer `@modelcontextprotocol/sdk`.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a bad option.
 * @example
 * ```ts
 * import { createAiSdkAgent } from '@acpkit/ai-sdk';
 * import { editorMcpServers } from '@acpkit/ai-sdk/mcp';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'coder', version: '1.0.0', model, mcp: editorMcpServers({ connectTimeoutMs: 5_000 }) });
 * ```
 */
export function editorMcpServers(options: EditorMcpServersOptions = {}): AiSdkMcpServers {
  const transports = { http: options.transports?.http !== false, sse: options.transports?.sse !== false };
  const settings: McpConnectionSettings = {
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs),
    callTimeoutMs: positive('callTimeoutMs', options.callTimeoutMs),
    maxToolsPerServer: positive('maxToolsPerServer', options.maxToolsPerServer),
    maxResultChars: positive('maxResultChars', options.maxResultChars),
    maxResultBytes: positive('maxResultBytes', options.maxResultBytes),
    needsApproval: approvalRule(options.approve),
    transports,
    clientName: 'acpkit-ai-sdk',
    clientVersion: '0',
  };
  const maxServers = positive('maxServers', options.maxServers);
  return {
    capabilities: transports,
    async connect(servers: readonly McpServer[], context) {
      const taken = new Set<string>();
      const chosen = servers.slice(0, maxServers);
      const skipped =
        servers.length > maxServers
          ? [
              `Only ${maxServers} MCP servers are connected per session (maxServers); skipped: ${servers
                .slice(maxServers)
                .map((server) => server.name)
                .join(', ')}.`,
            ]
          : [];
      // Names are taken in the servers' order, so a session's tool names do not depend on which answers first.
      const pending = chosen.map((server) => {
        const own = new Set<string>();
        return { own, opened: McpConnection.open(server, context.cwd, settings, own) };
      });
      const connections: McpConnection[] = [];
      for (const { own, opened } of pending) {
        const connection = await opened;
        for (const name of own) {
          if (taken.has(name)) {
            // Two servers of the same name: the later one's clashing tools are renamed apart.
            const tool = connection.tools[name];
            delete connection.tools[name];
            let suffix = 2;
            while (taken.has(`${name.slice(0, 60)}_${suffix}`)) suffix += 1;
            const renamed = `${name.slice(0, 60)}_${suffix}`;
            if (tool !== undefined) connection.tools[renamed] = tool;
            taken.add(renamed);
          } else {
            taken.add(name);
          }
        }
        connections.push(connection);
      }
      return new SessionServers(connections, skipped);
    },
  };
}
