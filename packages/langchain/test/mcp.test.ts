// The editor's MCP servers through @langchain/mcp-adapters: a real stdio MCP server (the MCP SDK's own) gives its tools
// to a per-session agent factory, the server is closed with the session, a server that fails is reported and left
// out, and the number of servers is bounded.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTestClient, type TestClient } from '@acpkit/testing';
import { type McpServer, methods, RequestError } from '@agentclientprotocol/sdk';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLangChainAgent } from '../src/index.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
const directory = mkdtempSync(join(tmpdir(), 'acpkit-langchain-mcp-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const fixture = new URL('./fixtures/mcp-server.mjs', import.meta.url).pathname;

function calcServer(pidFile: string): McpServer {
  return {
    name: 'calc',
    command: process.execPath,
    args: [fixture],
    env: [{ name: 'PID_FILE', value: pidFile }],
  };
}

function factoryApp(toolNames: string[][], options: { maxServers?: number } = {}) {
  return createLangChainAgent({
    name: 'mcp-agent',
    version: '1.0.0',
    mcp: { maxServers: options.maxServers ?? 3, connectTimeoutMs: 10_000 },
    agent: ({ mcpTools }) => {
      toolNames.push(mcpTools.map((tool) => tool.name));
      const model = fakeModel()
        .respondWithTools([{ name: 'calc__add', args: { a: 2, b: 3 }, id: 'add-1' }])
        .respond(new AIMessage('2 + 3 = 5.'));
      return createAgent({ model, tools: [...mcpTools] });
    },
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) for `predicate`, checking on each event-loop turn a child's exit may need. */
async function eventually(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('MCP servers of the session', () => {
  it('advertises http and sse for a per-session factory; its tools reach the graph; the server closes with the session', async () => {
    const toolNames: string[][] = [];
    const pidFile = join(directory, 'calc.pid');
    const client = await connectTestClient(factoryApp(toolNames), { permissions: 'allow' });
    clients.push(client);
    expect(client.initialize.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = await client.agent.request(methods.agent.session.new, {
      cwd: directory,
      mcpServers: [calcServer(pidFile)],
    });
    expect(toolNames.at(-1)).toEqual(['calc__add']);
    const response = await client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'add' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const result = client.transcript.find(
      (event) =>
        event.kind === 'session-update' &&
        (event.update as { toolCallId?: string; status?: string }).status === 'completed',
    );
    expect(JSON.stringify(result)).toContain('"text":"5"');
    await eventually(() => existsSync(pidFile), 'the MCP server pid file');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await client.agent.request(methods.agent.session.close, { sessionId });
    await eventually(() => !alive(pid), 'the MCP server to exit after session/close');
  });

  it('a server that cannot start is reported at the start of the next turn and left out; the turn runs', async () => {
    const toolNames: string[][] = [];
    const client = await connectTestClient(factoryApp(toolNames));
    clients.push(client);
    const broken: McpServer = {
      name: 'broken',
      command: join(directory, 'no-such-command'),
      args: [],
      env: [],
    };
    const { sessionId } = await client.agent.request(methods.agent.session.new, {
      cwd: directory,
      mcpServers: [broken],
    });
    expect(toolNames.at(-1)).toEqual([]);
    const before = client.transcript.length;
    await client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    const notice = client.transcript
      .slice(before)
      .find(
        (event) => event.kind === 'session-update' && event.update.sessionUpdate === 'agent_thought_chunk',
      );
    expect(JSON.stringify(notice)).toContain('MCP server \\"broken\\" gave no tools');
  });

  it('more servers than maxServers is -32602 and opens nothing', async () => {
    const toolNames: string[][] = [];
    const client = await connectTestClient(factoryApp(toolNames, { maxServers: 1 }));
    clients.push(client);
    const opened = toolNames.length;
    const servers = [
      calcServer(join(directory, 'a.pid')),
      { ...calcServer(join(directory, 'b.pid')), name: 'calc2' },
    ];
    await expect(
      client.agent.request(methods.agent.session.new, { cwd: directory, mcpServers: servers }),
    ).rejects.toSatisfy(
      (error) =>
        error instanceof RequestError && error.code === -32602 && /at most 1 MCP servers/.test(error.message),
    );
    expect(toolNames).toHaveLength(opened);
    expect(existsSync(join(directory, 'a.pid'))).toBe(false);
  });

  it('a single graph (not a factory) does not advertise http or sse MCP servers', async () => {
    const model = fakeModel().respond(new AIMessage('hi'));
    const client = await connectTestClient(
      createLangChainAgent({ name: 'a', version: '1', agent: createAgent({ model, tools: [] }) }),
    );
    clients.push(client);
    expect(client.initialize.agentCapabilities?.mcpCapabilities).toEqual({ http: false, sse: false });
  });
});
