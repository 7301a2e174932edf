// One editor MCP server of one session: its transport (stdio, Streamable HTTP or SSE, from the MCP SDK), the
// connect-and-list under one deadline, its tools, and its close (a stdio server's process ends with it).
import type { McpServer } from '@agentclientprotocol/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolSet } from 'ai';
import { boundedFetch } from './bounded-fetch.js';
import { type McpToolInfo, type McpToolSettings, mcpTool, namespacedName } from './mcp-tools.js';
import { forgetServerProcess, rememberServerProcess } from './stdio-processes.js';

/** The bounds and settings a connection works under. */
export interface McpConnectionSettings extends McpToolSettings {
  readonly connectTimeoutMs: number;
  readonly maxToolsPerServer: number;
  readonly maxResultBytes: number;
  readonly transports: { readonly http: boolean; readonly sse: boolean };
  readonly clientName: string;
  readonly clientVersion: string;
}

/** How much of a stdio server's stderr is kept to explain why it failed. */
const STDERR_TAIL = 2_000;

/** The server's transport, or why it cannot have one. */
function transportFor(server: McpServer, cwd: string, settings: McpConnectionSettings): Transport | string {
  const headers = (list: readonly { name: string; value: string }[]) =>
    Object.fromEntries(list.map((header) => [header.name, header.value]));
  if ('type' in server && server.type === 'http') {
    if (!settings.transports.http) return 'HTTP MCP servers are not enabled for this agent';
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: headers(server.headers) },
      fetch: boundedFetch(settings.maxResultBytes),
    });
  }
  if ('type' in server && server.type === 'sse') {
    if (!settings.transports.sse) return 'SSE MCP servers are not enabled for this agent';
    return new SSEClientTransport(new URL(server.url), {
      requestInit: { headers: headers(server.headers) },
      fetch: boundedFetch(settings.maxResultBytes),
    });
  }
  const stdio = server as Extract<McpServer, { command: string }>;
  return new StdioClientTransport({
    command: stdio.command,
    args: stdio.args,
    env: {
      ...getDefaultEnvironment(),
      ...Object.fromEntries(stdio.env.map((entry) => [entry.name, entry.value])),
    },
    cwd,
    stderr: 'pipe',
    // The MCP SDK closes a server whose one message outgrows this.
    maxBufferSize: settings.maxResultBytes,
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One connected server (or one that failed: `problem` says why, and it has no tools). */
export class McpConnection {
  readonly name: string;
  readonly tools: ToolSet = {};
  problem: string | undefined;
  readonly #client: Client;
  readonly #transport: Transport | undefined;
  #stderrTail = '';
  #closed = false;
  /** Why this server was closed under its calls (a message over maxResultBytes). */
  #closedBecause: string | undefined;
  /** A stdio server's pid, kept here: the transport forgets it once closed. */
  #pid: number | null = null;

  private constructor(
    name: string,
    client: Client,
    transport: Transport | undefined,
    problem: string | undefined,
  ) {
    this.name = name;
    this.#client = client;
    this.#transport = transport;
    this.problem = problem;
  }

  /** Connects `server` and lists its tools (names added to `taken`), all within the connect timeout. */
  static async open(server: McpServer, cwd: string, settings: McpConnectionSettings, taken: Set<string>) {
    const client = new Client({ name: settings.clientName, version: settings.clientVersion });
    const transport = transportFor(server, cwd, settings);
    if (typeof transport === 'string') {
      return new McpConnection(server.name, client, undefined, `MCP server "${server.name}": ${transport}.`);
    }
    const connection = new McpConnection(server.name, client, transport, undefined);
    await connection.#start(settings, taken);
    return connection;
  }

  async #start(settings: McpConnectionSettings, taken: Set<string>): Promise<void> {
    const transport = this.#transport as Transport;
    const deadline = AbortSignal.timeout(settings.connectTimeoutMs);
    const options = { signal: deadline, timeout: settings.connectTimeoutMs };
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
    }
    // A message over maxResultBytes ends the event stream it came on (bounded-fetch.ts). The SSE transports would
    // reconnect and leave the calls waiting on that stream to their callTimeoutMs: close the server instead, so its
    // calls fail now with a clear message (a JSON response over the bound fails only its own call).
    this.#client.onerror = (error) => {
      const message = messageOf(error);
      if (!message.includes('(maxResultBytes)')) return;
      this.#closedBecause ??= message.replace(/^SSE error: /, '');
      void this.close();
    };
    // The SDK's connect bounds the initialize request, not the transport's start: an SSE server that never answers
    // its GET would hold the session's setup forever.
    const timedOut = new Promise<never>((_resolve, reject) => {
      deadline.addEventListener('abort', () => reject(deadline.reason), { once: true });
    });
    timedOut.catch(() => undefined);
    try {
      const started = this.#client.connect(transport, options);
      if (transport instanceof StdioClientTransport) {
        // The pid exists once the process is spawned (synchronously in start()).
        this.#pid = transport.pid;
        rememberServerProcess(this.#pid);
      }
      started.catch(() => undefined);
      await Promise.race([started, timedOut]);
      const listed: McpToolInfo[] = [];
      let cursor: string | undefined;
      let more = false;
      do {
        const page = await this.#client.listTools(cursor === undefined ? {} : { cursor }, options);
        for (const tool of page.tools) {
          if (listed.length >= settings.maxToolsPerServer) {
            more = true;
            break;
          }
          listed.push(tool as McpToolInfo);
        }
        cursor = more ? undefined : page.nextCursor;
      } while (cursor !== undefined);
      for (const info of listed) {
        this.tools[namespacedName(this.name, info.name, taken)] = mcpTool(
          this.#client,
          this.name,
          info,
          settings,
          () => this.#closedBecause,
        );
      }
      if (more) {
        this.problem = `MCP server "${this.name}" has more than ${settings.maxToolsPerServer} tools; only the first ${settings.maxToolsPerServer} are offered (maxToolsPerServer).`;
      }
    } catch (error) {
      const why = deadline.aborted
        ? `did not answer within ${settings.connectTimeoutMs} ms (connectTimeoutMs)`
        : `could not start: ${this.#closedBecause ?? messageOf(error)}`;
      const stderr = this.#stderrTail.trim();
      this.problem = `MCP server "${this.name}" ${why}${stderr === '' ? '' : `; its stderr ends with: ${stderr.split('\n').slice(-3).join(' | ')}`}. Its tools are not available in this session.`;
      await this.close();
    }
  }

  /** Closes the server (stdio: stdin closed, then SIGTERM, then SIGKILL, as the MCP SDK does). Never rejects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#client.close();
    } catch {
      // Closing a server that is already gone.
    }
    try {
      await this.#transport?.close();
    } catch {
      // Same.
    }
    forgetServerProcess(this.#pid);
  }
}
