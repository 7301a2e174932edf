// The editor's MCP servers over the network transports ACP advertises (`mcpCapabilities`: SSE and Streamable HTTP),
// against real servers started here: the MCP SDK's SSE server and its Streamable HTTP server answering with SSE
// streams, plus servers that hang or flood, which must end in a clear message, bounded memory and a session that
// goes on, with nothing left open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAiSdkAgent } from '../src/index.js';
import { type EditorMcpServersOptions, editorMcpServers } from '../src/mcp/index.js';
import {
  startHostileHttpServer,
  startSseMcpServer,
  startStreamingHttpMcpServer,
  // @ts-expect-error: a plain .mjs fixture without types
} from './fixtures/mcp-remote-servers.mjs';
import { eventually } from './support/eventually.js';
import { finish, scriptedModel, sdkSession, steps, text, toolCall } from './support/scripted.js';

interface Started {
  readonly url: string;
  close(): Promise<void>;
}
interface Hostile extends Started {
  requests(): number;
  openResponses(): number;
}

const scratch = mkdtempSync(join(tmpdir(), 'acpkit-mcp-remote-'));
let sse: Started & { openStreams(): number };
let streaming: Started;
let hanging: Hostile;
let flooding: Hostile;
beforeAll(async () => {
  [sse, streaming, hanging, flooding] = await Promise.all([
    startSseMcpServer(),
    startStreamingHttpMcpServer(),
    startHostileHttpServer('hang'),
    startHostileHttpServer('flood'),
  ]);
});
afterAll(async () => {
  await Promise.all([sse, streaming, hanging, flooding].map((server) => server?.close()));
  rmSync(scratch, { recursive: true, force: true });
});

type Session = Awaited<ReturnType<typeof sdkSession>>;
const open: Session[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
});

async function agentWith(model: ReturnType<typeof scriptedModel>, options: EditorMcpServersOptions) {
  const app = createAiSdkAgent({ name: 'mcp-remote', version: '1', model, mcp: editorMcpServers(options) });
  const session = await sdkSession(app);
  open.push(session);
  return session;
}

function failures(client: Session): Record<string, string | undefined> {
  return Object.fromEntries(
    client
      .of('tool_call_update')
      .filter((update) => update.status === 'failed')
      .map((update) => [
        update.toolCallId,
        (update.content?.[0] as { content: { text: string } } | undefined)?.content.text,
      ]),
  );
}

describe('editor MCP servers over SSE and Streamable HTTP', { timeout: 60_000 }, () => {
  it('calls the tools of a real SSE server and of a Streamable HTTP server that streams; a result over maxResultBytes closes that server and fails its calls at once; the session goes on', async () => {
    const model = steps(
      toolCall('c1', 'events__add', { a: 2, b: 3 }),
      toolCall('c2', 'stream__echo', { text: 'over SSE responses' }),
      toolCall('c3', 'stream__huge', { megabytes: 2 }),
      toolCall('c4', 'stream__add', { a: 4, b: 4 }),
      toolCall('c5', 'events__huge', { megabytes: 2 }),
    );
    const client = await agentWith(model, { approve: 'none', maxResultBytes: 1024 * 1024 });
    expect(client.initialize.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [
        { type: 'sse', name: 'events', url: sse.url, headers: [] },
        { type: 'http', name: 'stream', url: streaming.url, headers: [] },
      ],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const offered = (model.calls[0]?.tools ?? []).map((entry) => entry.name);
    expect(offered).toEqual(expect.arrayContaining(['events__add', 'events__huge', 'stream__echo']));
    const completed = Object.fromEntries(
      client
        .of('tool_call_update')
        .filter((update) => update.status === 'completed')
        .map((update) => [update.toolCallId, update.rawOutput]),
    );
    expect(completed).toEqual({ c1: '5', c2: 'echo: over SSE responses' });
    const failed = failures(client);
    expect(failed.c3).toMatch(/over 1048576 bytes \(maxResultBytes\)/);
    // An event stream over the bound is not read on: its server is closed, and its next call fails at once.
    expect(failed.c4).toMatch(/Failed: .*(maxResultBytes|closed|Not connected)/i);
    expect(failed.c5).toMatch(/over 1048576 bytes \(maxResultBytes\)/);
    // The session goes on: the next turn answers.
    expect(await client.prompt(sessionId, 'again')).toEqual({ stopReason: 'end_turn' });
    await client.agent.request('session/close', { sessionId });
    await eventually(() => sse.openStreams() === 0, 'the SSE stream to close with the session');
  });

  it('reports a server that never answers (connectTimeoutMs) and one whose stream floods one endless event (maxResultBytes), over both transports; the session goes on and nothing stays open', async () => {
    const model = scriptedModel(() => [...text('ok'), finish('stop')]);
    const client = await agentWith(model, { connectTimeoutMs: 1_500, maxResultBytes: 256 * 1024 });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: scratch,
      mcpServers: [
        { type: 'http', name: 'stuck', url: hanging.url, headers: [] },
        { type: 'sse', name: 'stuck-events', url: hanging.url, headers: [] },
        { type: 'http', name: 'flood', url: flooding.url, headers: [] },
        { type: 'sse', name: 'flood-events', url: flooding.url, headers: [] },
        { type: 'sse', name: 'good', url: sse.url, headers: [] },
      ],
    });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const first = client.of('agent_message_chunk')[0];
    const warning = first?.content.type === 'text' ? first.content.text : '';
    expect(warning).toContain('MCP server "stuck" did not answer within 1500 ms (connectTimeoutMs)');
    expect(warning).toContain('MCP server "stuck-events" did not answer within 1500 ms (connectTimeoutMs)');
    expect(warning).toMatch(/MCP server "flood" could not start: .*over 262144 bytes \(maxResultBytes\)/);
    expect(warning).toMatch(
      /MCP server "flood-events" could not start: .*over 262144 bytes \(maxResultBytes\)/,
    );
    expect(warning).not.toContain('"good"');
    expect(model.calls[0]?.tools?.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['good__add', 'good__echo']),
    );
    expect(hanging.requests()).toBeGreaterThanOrEqual(2);
    expect(flooding.requests()).toBeGreaterThanOrEqual(2);
    // The agent went away from both: no request held open, no stream still being read.
    await eventually(() => hanging.openResponses() === 0, 'the hanging requests to be abandoned');
    await eventually(() => flooding.openResponses() === 0, 'the flooding streams to be abandoned');
    expect(await client.prompt(sessionId, 'again')).toEqual({ stopReason: 'end_turn' });
  });
});
