/**
 * `@acpkit/ai-sdk/mcp`: the editor's MCP servers as tools of an AI SDK agent. The only entry point that loads the
 * MCP SDK (`@modelcontextprotocol/sdk`, an optional peer): agents without it install and load nothing for MCP.
 */

export { type EditorMcpServersOptions, editorMcpServers } from './editor-mcp-servers.js';
export type { AiSdkMcpServers, McpSessionConnection } from './mcp-option.js';
export { runningServerProcesses } from './stdio-processes.js';
