// The seam between the agent and the editor's MCP servers: what `mcp` must be (made by editorMcpServers() in the
// `@acpkit/ai-sdk/mcp` subpath, the only place that loads the MCP SDK), so the main entry point installs nothing.
import { invalidOption } from '@acpkit/errors';
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { ToolSet } from 'ai';

/** The editor's MCP servers of one session, connected: their tools and what went wrong. */
export interface McpSessionConnection {
  /** The servers' tools, named `server__tool`. */
  readonly tools: ToolSet;
  /** One line per server that failed (to start, to answer in time, to list its tools), to show the user. */
  readonly problems: readonly string[];
  /** Closes every server (a stdio server's process ends with it). Never rejects. */
  close(): Promise<void>;
}

/**
 * Connects the MCP servers an editor passes in `session/new`/`load`: made by `editorMcpServers()` of
 * `@acpkit/ai-sdk/mcp`.
 *
 * @example
 * ```ts
 * import type { AiSdkMcpServers } from '@acpkit/ai-sdk';
 * import { editorMcpServers } from '@acpkit/ai-sdk/mcp';
 *
 * const mcp: AiSdkMcpServers = editorMcpServers({ connectTimeoutMs: 10_000 });
 * ```
 */
export interface AiSdkMcpServers {
  /** The transports besides stdio it connects (ACP `mcpCapabilities`). */
  readonly capabilities: McpCapabilities;
  /** Connects `servers` for one session. Never rejects: a server that fails is one of `problems`. */
  connect(
    servers: readonly McpServer[],
    context: { readonly sessionId: string; readonly cwd: string },
  ): Promise<McpSessionConnection>;
}

/** Checks `mcp`. */
export function resolveMcp(value: unknown): AiSdkMcpServers | undefined {
  if (value === undefined) return undefined;
  const candidate = value as Partial<AiSdkMcpServers> | null;
  if (typeof candidate?.connect !== 'function' || typeof candidate.capabilities !== 'object') {
    throw invalidOption('mcp', "editorMcpServers() from '@acpkit/ai-sdk/mcp'", value);
  }
  return value as AiSdkMcpServers;
}
