// The editor's MCP servers (editorMcpServers) against real MCP servers built with the MCP SDK: a stdio server
// process and a Streamable HTTP server, driven by a real SDK client; hostile servers (crash, hang, flood, endless
// line, huge results, too many tools); and the processes: no stdio server outlives its session or its agent.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type McpServer,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  client as sdkClient,
} from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAiSdkAgent } from '../src/index.js';
import { type EditorMcpServersOptions, editorMcpServers, runningServerProcesses } from '../src/mcp/index.js';
// @ts-expect-error: a plain .mjs fixture without types
import { startHttpMcpServer } from './fixtures/mcp-http-server.mjs';
import { eventually } from './support/eventually.js';
import { finish, scriptedModel, sdkSession, steps, text, toolCall } from './support/scripted.js';

const stdioFixture = fileURLToPath(new URL('./fixtures/mcp-stdio-server.mjs', import.meta.url));
const agentFixture = fileURLToPath(new URL('./fixtures/mcp-agent.mjs', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'acpkit-mcp-'));

function stdioServer(name: string, mode = 'ok', extraEnv: Record<string, string> = {}): McpServer {
  return {
    name,
    command: process.execPath,
    args: [stdioFixture],
    env: Object.entries({ FIXTURE_MODE: mode, ...extraEnv }).map(([key, value]) => ({ name: key, value })),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type Session = Awaited<ReturnType<typeof sdkSession>>;
const open: Session[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
});

async function agentWith(model: ReturnType<typeof scriptedModel>, options: EditorMcpServersOptions = {}) {
  const app = createAiSdkAgent({ name: 'mcp', version: '1', model, mcp: editorMcpServers(options) });
  const session = await sdkSession(app);
  open.push(session);
  return session;
}

let http: { url: string; seenHeaders: Array<Record<string, string>>; close(): Promise<void> };
beforeAll(async () => {
  http = await startHttpMcpServer({ requireHeader: { name: 'authorization', value: 'Bearer editor' } });
});
afterAll(async () => {
  await http.close();
  rmSync(scratch, { recursive: true, force: true });
});

// Real processes on a shared machine: generous per-test timeouts (the tests wait on events, not on time).
describe('editor MCP servers', { timeout: 60_000 }, () => {
  it('advertises HTTP and SSE, connects a stdio and an HTTP server, namespaces their tools and applies the approval rules', async () => {
    const model = steps(
      toolCall('c1', 'files__echo', { text: 'hi' }),
      toolCall('c2', 'web__add', { a: 2, b: 3 }),
    );
    const client = await agentWith(model);
    expect(client.initialize.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [
        stdioServer('files'),
        {
          type: 'http',
          name: 'web',
          url: http.url,
          headers: [{ name: 'Authorization', value: 'Bearer editor' }],
        },
      ],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const offered = (model.calls[0]?.tools ?? []).map((entry) => entry.name).sort();
    expect(offered).toEqual(
      ['add', 'crash', 'echo', 'fail', 'hang', 'huge']
        .flatMap((tool) => [`files__${tool}`, `web__${tool}`])
        .sort(),
    );
    // echo is not read-only: the user was asked, with the tool and its arguments in the title; add ran without asking.
    const permissions = client.requests.filter((request) => request.method === 'session/request_permission');
    expect(
      permissions.map((request) => (request.params as { toolCall: { title: string } }).toolCall.title),
    ).toEqual(['echo (files) (text="hi")']);
    expect(client.lastReply()).toMatchObject({ content: { text: 'last: "5"' } });
    const echoed = client
      .of('tool_call_update')
      .find((update) => update.toolCallId === 'c1' && update.status === 'completed');
    expect(echoed?.rawOutput).toBe('echo: hi');
    expect(http.seenHeaders.some((headers) => headers.authorization === 'Bearer editor')).toBe(true);
  });

  it('reports a server that crashes at start (with its stderr) and servers past maxServers; the session goes on with the others', async () => {
    const model = steps(toolCall('c1', 'good__add', { a: 1, b: 1 }));
    // A generous timeout: this test is about the crash, and a loaded machine may start node slowly.
    const client = await agentWith(model, { connectTimeoutMs: 30_000, maxServers: 2 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [
        stdioServer('good'),
        stdioServer('broken', 'crash'),
        stdioServer('third'),
        stdioServer('fourth'),
      ],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const first = client.of('agent_message_chunk')[0];
    const warning = first?.content.type === 'text' ? first.content.text : '';
    expect(warning, warning).toContain('MCP server "broken" could not start');
    expect(warning).toContain('cannot open the database');
    expect(warning).toContain(
      'Only 2 MCP servers are connected per session (maxServers); skipped: third, fourth.',
    );
    expect(client.lastReply(), warning).toMatchObject({ content: { text: 'last: "2"' } });
    // The failed server's process is gone; only "good" runs.
    expect(runningServerProcesses()).toHaveLength(1);
    // Reported once: the next turn does not repeat it.
    const before = client.of('agent_message_chunk').length;
    await client.prompt(sessionId, 'again');
    expect(
      client
        .of('agent_message_chunk')
        .slice(before)
        .map((chunk) => (chunk.content as { text: string }).text),
    ).toEqual(['last: "2"']);
  });

  it('reports a server that never answers (connectTimeoutMs) or sends an endless line (maxResultBytes), and ends both', async () => {
    const model = scriptedModel(() => [...text('ok'), finish('stop')]);
    const client = await agentWith(model, { connectTimeoutMs: 2_000, maxResultBytes: 256 * 1024 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [stdioServer('stuck', 'hang'), stdioServer('endless', 'long-line')],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const first = client.of('agent_message_chunk')[0];
    const warning = first?.content.type === 'text' ? first.content.text : '';
    expect(warning).toContain('MCP server "stuck" did not answer within 2000 ms (connectTimeoutMs)');
    expect(warning).toMatch(/MCP server "endless" (could not start|did not answer)/);
    expect(runningServerProcesses()).toEqual([]);
  });

  it('fails a call with a clear message for an error result, a hang (callTimeoutMs), a huge result (maxResultBytes) and a crash', async () => {
    // The hang has a session of its own with a short callTimeoutMs: the other calls keep the default, so a loaded
    // machine that takes over a second to move 2 MB cannot turn "too big" into "timed out".
    const hanging = await agentWith(steps(toolCall('c2', 'hostile__hang', {})), {
      approve: 'none',
      callTimeoutMs: 1_000,
    });
    const hangingSession = await hanging.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [stdioServer('hostile')],
    });
    expect(await hanging.prompt(hangingSession.sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const model = steps(
      toolCall('c1', 'hostile__fail', {}),
      toolCall('c3', 'hostile__huge', { megabytes: 2 }),
      toolCall('c4', 'web__huge', { megabytes: 2 }),
      toolCall('c5', 'other__crash', {}),
      toolCall('c6', 'other__echo', { text: 'after the crash' }),
    );
    const client = await agentWith(model, { approve: 'none', maxResultBytes: 1024 * 1024 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [
        stdioServer('hostile'),
        stdioServer('other'),
        {
          type: 'http',
          name: 'web',
          url: http.url,
          headers: [{ name: 'authorization', value: 'Bearer editor' }],
        },
      ],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const failures = Object.fromEntries(
      [...hanging.of('tool_call_update'), ...client.of('tool_call_update')]
        .filter((update) => update.status === 'failed')
        .map((update) => [
          update.toolCallId,
          (update.content?.[0] as { content: { text: string } } | undefined)?.content.text,
        ]),
    );
    expect(failures.c1).toBe('Failed: hostile/fail failed: the fixture failed on purpose');
    expect(failures.c2).toMatch(/Request timed out/i);
    expect(failures.c3).toMatch(/Failed: .*(closed|ReadBuffer exceeded)/i);
    expect(failures.c4).toMatch(/over 1048576 bytes \(maxResultBytes\)/);
    expect(failures.c5).toMatch(/Failed: .*closed/i);
    expect(failures.c6).toMatch(/Failed: .*(closed|Not connected)/i);
  });

  it('cuts a large result to maxResultChars for the model, and keeps working beside a server that floods its stdout', async () => {
    const model = steps(
      toolCall('c1', 'big__huge', { megabytes: 1 }),
      toolCall('c2', 'noisy__echo', { text: 'still here' }),
    );
    const client = await agentWith(model, { approve: 'none', maxResultChars: 1_000 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [stdioServer('big'), stdioServer('noisy', 'flood')],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const big = client
      .of('tool_call_update')
      .find((update) => update.toolCallId === 'c1' && update.status === 'completed');
    expect(String(big?.rawOutput)).toHaveLength(
      1_000 + '\n\n[The result is cut here: it had more than 1000 characters.]'.length,
    );
    expect(client.lastReply()).toMatchObject({ content: { text: 'last: "echo: still here"' } });
  });

  it('offers at most maxToolsPerServer tools of a server and says so', async () => {
    const model = scriptedModel(() => [...text('ok'), finish('stop')]);
    const client = await agentWith(model, { maxToolsPerServer: 10 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [stdioServer('wide', 'ok', { FIXTURE_TOOLS: '500' })],
    });
    await client.prompt(sessionId, 'go');
    expect(model.calls[0]?.tools).toHaveLength(10);
    expect(client.of('agent_message_chunk')[0]?.content).toMatchObject({
      text: expect.stringContaining('more than 10 tools; only the first 10 are offered (maxToolsPerServer)'),
    });
  });
});

describe('MCP server processes', { timeout: 60_000 }, () => {
  it('ends a stdio server when its session closes with the connection', async () => {
    const pidFile = join(scratch, 'pids-connection');
    const model = steps(toolCall('c1', 'files__add', { a: 1, b: 1 }));
    const client = await agentWith(model);
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [stdioServer('files', 'ok', { FIXTURE_PIDFILE: pidFile })],
    });
    await client.prompt(sessionId, 'go');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(isAlive(pid)).toBe(true);
    await client.close();
    open.splice(open.indexOf(client), 1);
    await eventually(() => !isAlive(pid), `MCP server ${pid} to end with its connection`);
  });

  it('leaves no stdio server behind when the agent process ends: its stdin closed, or process.exit mid-session', async () => {
    for (const exitMode of ['stdin-closed', 'on-first-prompt']) {
      const pidFile = join(scratch, `pids-${exitMode}`);
      const child = spawn(process.execPath, [agentFixture], {
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, MCP_AGENT_EXIT: exitMode },
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const stream = ndJsonStream(
        Writable.toWeb(child.stdin),
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      );
      const connection = sdkClient({ name: 'process-tree' })
        .onRequest(methods.client.session.requestPermission, () => ({
          outcome: { outcome: 'selected', optionId: 'allow_once' },
        }))
        .connect(stream);
      await connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = await connection.agent.request(methods.agent.session.new, {
        cwd: scratch,
        mcpServers: [stdioServer('fixture', 'ok', { FIXTURE_PIDFILE: pidFile })],
      });
      const prompt = connection.agent
        .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] })
        .catch((error: Error) => error);
      if (exitMode === 'stdin-closed') {
        await prompt;
        child.stdin.end();
      }
      await exited;
      await prompt;
      connection.close();
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      await eventually(() => !isAlive(pid), `MCP server ${pid} to end with its agent (${exitMode})`);
    }
  });
});
