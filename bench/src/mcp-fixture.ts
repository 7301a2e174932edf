// A real Streamable HTTP MCP server (the MCP SDK's McpServer, stateless, JSON responses) on an OS-chosen port with
// `toolCount` tools, so the ai-sdk benchmark can run turns with the editor's MCP tools connected for real (over
// HTTP: no process per session).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export async function startMcpFixture(toolCount: number): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (request, response) => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    for (let index = 0; index < toolCount; index += 1) {
      server.registerTool(
        `tool_${index}`,
        { description: `Bench tool ${index}.`, inputSchema: { path: z.string() } },
        async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      );
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    let body = '';
    for await (const chunk of request) body += chunk;
    await transport.handleRequest(request, response, body === '' ? undefined : JSON.parse(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
