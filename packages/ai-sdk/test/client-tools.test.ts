// clientFileTools() and clientTerminalTool() against a real SDK client: files in the client's memory (answering
// fs/* as an editor does, or with errors and huge files), terminals as real child processes.
import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { clientFileTools, clientTerminalTool, createAiSdkAgent } from '../src/index.js';
import { ClientTerminals } from './support/client-terminals.js';
import { finish, scriptedModel, sdkSession, steps, text, toolCall } from './support/scripted.js';

type Session = Awaited<ReturnType<typeof sdkSession>>;
const open: Session[] = [];
const terminals: ClientTerminals[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
  await Promise.all(terminals.splice(0).map((set) => set.dispose()));
});

const fsCaps = { fs: { readTextFile: true, writeTextFile: true } };

function memoryFiles(files: Map<string, string>) {
  return {
    'fs/read_text_file': (params: { path: string }) => {
      const content = files.get(params.path);
      if (content === undefined) throw RequestError.resourceNotFound(params.path);
      return { content };
    },
    'fs/write_text_file': (params: { path: string; content: string }) => {
      files.set(params.path, params.content);
      return {};
    },
  };
}

async function connect(...args: Parameters<typeof sdkSession>): Promise<Session> {
  const session = await sdkSession(...args);
  open.push(session);
  return session;
}

describe('clientFileTools', () => {
  it('offers no file tool to a client without fs, and only read to a read-only client', async () => {
    const model = scriptedModel(() => [...text('ok'), finish('stop')]);
    const app = () => createAiSdkAgent({ name: 'f', version: '1', model, tools: { ...clientFileTools() } });
    for (const [capabilities, expected] of [
      [{}, []],
      [{ fs: { readTextFile: true } }, ['readFile']],
      [fsCaps, ['readFile', 'writeFile', 'editFile']],
    ] as const) {
      const client = await connect(app(), { capabilities });
      const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
      await client.prompt(sessionId, 'hi');
      expect((model.calls.at(-1)?.tools ?? []).map((entry) => entry.name).sort()).toEqual(
        [...expected].sort(),
      );
    }
  });

  it('reads the editor buffer, writes and edits with diff content and locations on the tool call', async () => {
    const files = new Map([['/repo/src/a.ts', 'const a = 1;\nconst b = 2;\n']]);
    const model = steps(
      toolCall('r', 'readFile', { path: 'src/a.ts' }),
      toolCall('e', 'editFile', { path: 'src/a.ts', oldText: 'const b = 2;', newText: 'const b = 3;' }),
      toolCall('w', 'writeFile', { path: '/repo/new.md', content: '# New\n' }),
    );
    const app = createAiSdkAgent({ name: 'f', version: '1', model, tools: { ...clientFileTools() } });
    const client = await connect(app, { capabilities: fsCaps, requests: memoryFiles(files) as never });
    const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    expect(files.get('/repo/src/a.ts')).toBe('const a = 1;\nconst b = 3;\n');
    expect(files.get('/repo/new.md')).toBe('# New\n');
    const calls = client.of('tool_call');
    expect(calls.map((call) => [call.toolCallId, call.kind, call.title, call.locations])).toEqual([
      ['r', 'read', 'Read src/a.ts', [{ path: 'src/a.ts', line: null }]],
      ['e', 'edit', 'Edit src/a.ts', [{ path: 'src/a.ts' }]],
      ['w', 'edit', 'Write /repo/new.md', [{ path: '/repo/new.md' }]],
    ]);
    const diffs = client.of('tool_call_update').filter((update) => update.content?.[0]?.type === 'diff');
    expect(diffs).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'e',
        content: [
          {
            type: 'diff',
            path: '/repo/src/a.ts',
            oldText: 'const a = 1;\nconst b = 2;\n',
            newText: 'const a = 1;\nconst b = 3;\n',
          },
        ],
        locations: [{ path: '/repo/src/a.ts', line: 2 }],
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'w',
        content: [{ type: 'diff', path: '/repo/new.md', oldText: null, newText: '# New\n' }],
        locations: [{ path: '/repo/new.md', line: 1 }],
      },
    ]);
    // The completed update keeps the diff (no content replaces it).
    const completedEdit = client
      .of('tool_call_update')
      .find((update) => update.toolCallId === 'e' && update.status === 'completed');
    expect(completedEdit?.content).toBeUndefined();
  });

  it('turns a client error into a failed tool call the model reads; the turn goes on', async () => {
    const model = steps(
      toolCall('r', 'readFile', { path: '/repo/missing.ts' }),
      toolCall('e', 'editFile', { path: '/repo/a.ts', oldText: 'nope', newText: 'x' }),
    );
    const files = new Map([['/repo/a.ts', 'text']]);
    const app = createAiSdkAgent({ name: 'f', version: '1', model, tools: { ...clientFileTools() } });
    const client = await connect(app, { capabilities: fsCaps, requests: memoryFiles(files) as never });
    const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const failed = client.of('tool_call_update').filter((update) => update.status === 'failed');
    expect(
      failed.map((update) => [
        update.toolCallId,
        (update.content?.[0] as { content: { text: string } } | undefined)?.content.text,
      ]),
    ).toEqual([
      ['r', expect.stringMatching(/^Failed: The editor could not read \/repo\/missing\.ts: .*\(-32002\)$/)],
      ['e', 'Failed: oldText was not found in /repo/a.ts; read the file and copy the text exactly.'],
    ]);
  });

  it('bounds a huge file: a read is cut with a note, the diff of an edit in a 50 MB file shows only the changed region', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const big = `${line.repeat(250_000)}TARGET\n${line.repeat(250_000)}`; // ≈ 50 MB
    const files = new Map([['/repo/big.txt', big]]);
    const model = steps(
      toolCall('r', 'readFile', { path: '/repo/big.txt' }),
      toolCall('e', 'editFile', { path: '/repo/big.txt', oldText: 'TARGET', newText: 'CHANGED' }),
    );
    const app = createAiSdkAgent({ name: 'f', version: '1', model, tools: { ...clientFileTools() } });
    const client = await connect(app, { capabilities: fsCaps, requests: memoryFiles(files) as never });
    const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const readResult = client
      .of('tool_call_update')
      .find((update) => update.toolCallId === 'r' && update.status === 'completed');
    // The cut text, shown once as content and once as rawOutput.
    expect(JSON.stringify(readResult).length).toBeLessThan(2 * 110_000);
    expect(JSON.stringify(readResult)).toContain('[The file is cut here: it has 50000007 characters');
    const diff = client.of('tool_call_update').find((update) => update.content?.[0]?.type === 'diff');
    expect(JSON.stringify(diff).length).toBeLessThan(4_000);
    expect(diff?.content?.[0]).toMatchObject({
      type: 'diff',
      oldText: expect.stringContaining('TARGET'),
      newText: expect.stringContaining('CHANGED'),
      _meta: { acpkit: { cropped: true, firstLine: 250_001 - 3 } },
    });
    expect(diff?.locations).toEqual([{ path: '/repo/big.txt', line: 250_001 - 3 }]);
    expect(files.get('/repo/big.txt')?.length).toBe(big.length + 1);
  });
});

describe('clientTerminalTool', () => {
  const node = process.execPath;

  it('runs a command in a client terminal embedded in the tool call, returns exit code and output, releases it', async () => {
    const set = new ClientTerminals();
    terminals.push(set);
    const model = steps(
      toolCall('t', 'terminal', {
        command: node,
        args: ['-e', "console.log('hello from the terminal'); process.exit(3)"],
      }),
    );
    const app = createAiSdkAgent({
      name: 't',
      version: '1',
      model,
      tools: { terminal: clientTerminalTool({ needsApproval: false, outputByteLimit: 1_000 }) },
    });
    const client = await connect(app, {
      capabilities: { terminal: true },
      requests: set.handlers() as never,
    });
    const { sessionId } = await client.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(await client.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const embedded = client.of('tool_call_update').find((update) => update.content?.[0]?.type === 'terminal');
    expect(embedded?.content).toEqual([{ type: 'terminal', terminalId: 'term-1' }]);
    expect(client.of('tool_call')[0]).toMatchObject({
      kind: 'execute',
      title: expect.stringContaining('Run '),
    });
    const created = client.requests.find((request) => request.method === 'terminal/create');
    expect(created?.params).toMatchObject({ sessionId, outputByteLimit: 1_000, cwd: process.cwd() });
    expect(client.lastReply()).toMatchObject({
      content: { text: expect.stringContaining('"exitCode":3') },
    });
    expect(JSON.stringify(client.lastReply())).toContain('hello from the terminal');
    expect(set.calls).toEqual([`create ${node}`, 'wait', 'output', 'release']);
    expect(set.live).toEqual([]);
  });

  it('kills and releases the command when the turn is cancelled', async () => {
    const set = new ClientTerminals();
    terminals.push(set);
    const model = steps(
      toolCall('t', 'terminal', { command: node, args: ['-e', 'setInterval(() => {}, 1000)'] }),
    );
    const app = createAiSdkAgent({
      name: 't',
      version: '1',
      model,
      tools: { terminal: clientTerminalTool({ needsApproval: false }) },
    });
    const client = await connect(app, {
      capabilities: { terminal: true },
      requests: set.handlers() as never,
    });
    const { sessionId } = await client.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const prompt = client.prompt(sessionId, 'go');
    await client.waitFor(
      (update) => update.sessionUpdate === 'tool_call_update' && update.content?.[0]?.type === 'terminal',
    );
    await client.agent.notify('session/cancel', { sessionId });
    expect(await prompt).toEqual({ stopReason: 'cancelled' });
    expect(set.calls).toEqual([`create ${node}`, 'wait', 'kill', 'release']);
    expect(set.live).toEqual([]);
    expect(set.running).toEqual([]);
  });

  it('is not offered to a client without terminals', async () => {
    const model = scriptedModel(() => [...text('ok'), finish('stop')]);
    const app = createAiSdkAgent({
      name: 't',
      version: '1',
      model,
      tools: { terminal: clientTerminalTool() },
    });
    const client = await connect(app);
    const { sessionId } = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    await client.prompt(sessionId, 'hi');
    expect(model.calls[0]?.tools ?? []).toEqual([]);
  });
});
