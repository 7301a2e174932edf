// The editor's MCP servers (`mcpServers` of session/new, load, resume) as LangChain tools, through
// `@langchain/mcp-adapters` (an optional peer, imported only when a session names servers). Bounded: at most
// `maxServers` servers and `connectTimeoutMs` to connect and list the tools of all of them; the client is closed
// with the session. A server that fails to connect is reported to the user and left out, not fatal.
import type { McpServer } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { LangChainAgentError, LangChainAgentErrorCode } from '../errors.js';

/** The MCP tools of one session and how to close their connections. */
export interface SessionMcp {
  readonly tools: readonly StructuredToolInterface[];
  /** Servers that failed, with why (shown to the user once the session is open). */
  readonly failures: readonly string[];
  close(): Promise<void>;
}

const NO_MCP: SessionMcp = { tools: [], failures: [], close: async () => undefined };

function connectionOf(server: McpServer): Record<string, unknown> {
  if ('command' in server) {
    return {
      transport: 'stdio',
      command: server.command,
      args: server.args,
      env: Object.fromEntries(server.env.map(({ name, value }) => [name, value])),
      stderr: 'ignore',
    };
  }
  const type = (server as { type?: string }).type === 'sse' ? 'sse' : 'http';
  return {
    transport: type,
    url: server.url,
    headers: Object.fromEntries(server.headers.map(({ name, value }) => [name, value])),
  };
}

/**
 * Connects to `servers` and loads their tools.
 *
 * @throws `RequestError` -32602 for more servers than `maxServers` or two with one name; `LangChainAgentError`
 * `MCP_ADAPTERS_MISSING` when the optional peer is not installed.
 */
export async function openSessionMcp(
  servers: readonly McpServer[] | undefined,
  limits: { readonly maxServers: number; readonly connectTimeoutMs: number },
): Promise<SessionMcp> {
  if (servers === undefined || servers.length === 0) return NO_MCP;
  if (servers.length > limits.maxServers) {
    throw RequestError.invalidParams(
      { mcpServers: servers.length, maxServers: limits.maxServers },
      `this agent connects at most ${limits.maxServers} MCP servers per session; ${servers.length} were given`,
    );
  }
  const names = new Set(servers.map((server) => server.name));
  if (names.size !== servers.length) {
    throw RequestError.invalidParams(
      { mcpServers: [...names] },
      'two MCP servers of the session have the same name',
    );
  }
  let adapters: typeof import('@langchain/mcp-adapters');
  try {
    adapters = await import('@langchain/mcp-adapters');
  } catch (error) {
    throw new LangChainAgentError(
      LangChainAgentErrorCode.McpAdaptersMissing,
      'the client sent MCP servers but @langchain/mcp-adapters is not installed; install it or pass mcp: false',
      { cause: error },
    );
  }
  const client = new adapters.MultiServerMCPClient({
    mcpServers: Object.fromEntries(servers.map((server) => [server.name, connectionOf(server)])) as never,
    onConnectionError: 'ignore',
    prefixToolNameWithServerName: true,
    useStandardContentBlocks: true,
  });
  const failures: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`connecting to the MCP servers took longer than ${limits.connectTimeoutMs} ms`)),
        limits.connectTimeoutMs,
      );
    });
    const tools = await Promise.race([client.getTools(), timeout]);
    const connected = new Set(tools.map((tool) => tool.name.split('__')[0]));
    for (const name of names)
      if (!connected.has(name))
        failures.push(`MCP server "${name}" gave no tools (it failed to connect or has none)`);
    return { tools, failures, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    return {
      tools: [],
      failures: [`MCP servers left out: ${error instanceof Error ? error.message : String(error)}`],
      close: async () => undefined,
    };
  } finally {
    clearTimeout(timer);
  }
}
