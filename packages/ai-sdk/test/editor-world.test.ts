// The editor's world over a real SDK client (ai 6, in-process): tool-call projection, usage updates, plans, modes,
// the model picker and other config options, slash commands, and the state they leave in the session store.

import { memorySessionStore } from '@acpkit/sessions';
import type { RequestError } from '@agentclientprotocol/sdk';
import { tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkAgent, planTool, withToolCallDisplay } from '../src/index.js';
import { finish, scriptedModel, sdkSession, text, toolCall, toolResultCount } from './support/scripted.js';

type Session = Awaited<ReturnType<typeof sdkSession>>;
const open: Session[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
});

async function connect(...args: Parameters<typeof sdkSession>): Promise<Session> {
  const session = await sdkSession(...args);
  open.push(session);
  return session;
}

const step1Usage = {
  inputTokens: { total: 1_000, noCache: 800, cacheRead: 200, cacheWrite: 0 },
  outputTokens: { total: 100, text: 100, reasoning: 0 },
};

describe('tool-call projection', () => {
  it('derives kind and locations from the name and input, a tool may override them, and permission titles show the arguments', async () => {
    const model = scriptedModel((call) =>
      toolResultCount(call) === 0
        ? [
            toolCall('c1', 'readFile', { path: '/repo/a.ts', line: 3 }),
            toolCall('c2', 'run_command', { command: 'npm test', cwd: '/repo' }),
            toolCall('c3', 'lint', { file: '/repo/b.ts' }),
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: step1Usage },
          ]
        : [...text('done'), finish('stop')],
    );
    const echo = (name: string) =>
      tool({
        description: name,
        inputSchema: z.record(z.string(), z.unknown()),
        execute: async () => `${name} ok`,
      });
    const app = createAiSdkAgent({
      name: 'p',
      version: '1',
      model,
      tools: {
        readFile: echo('readFile'),
        run_command: tool({ ...echo('run'), needsApproval: true }),
        lint: withToolCallDisplay(echo('lint'), (input) => ({
          title: `Lint ${(input as { file: string }).file}`,
          kind: 'execute',
          locations: [{ path: (input as { file: string }).file }],
        })),
      },
    });
    const client = await connect(app);
    const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
    expect((await client.prompt(sessionId, 'go')).stopReason).toBe('end_turn');
    const calls = client.of('tool_call');
    const byId = (a: { toolCallId: string }, b: { toolCallId: string }) =>
      a.toolCallId.localeCompare(b.toolCallId);
    expect([...calls].sort(byId).map((call) => [call.toolCallId, call.kind, call.locations ?? null])).toEqual(
      [
        ['c1', 'read', [{ path: '/repo/a.ts', line: 3 }]],
        ['c2', 'execute', null],
        ['c3', 'execute', [{ path: '/repo/b.ts' }]],
      ],
    );
    expect(calls.find((call) => call.toolCallId === 'c3')?.title).toBe('Lint /repo/b.ts');
    const permission = client.requests.find((request) => request.method === 'session/request_permission');
    expect((permission?.params as { toolCall: { title: string } } | undefined)?.toolCall.title).toBe(
      'run_command (command="npm test", cwd="/repo")',
    );
  });
});

describe('usage and plans', () => {
  it('sends usage_update after each step (tokens in context, window, cumulative cost) and plan updates from planTool', async () => {
    const plan = [
      { content: 'Read the test', priority: 'high', status: 'completed' },
      { content: 'Fix the bug', status: 'in_progress' },
    ];
    const model = scriptedModel((call) =>
      toolResultCount(call) === 0
        ? [
            toolCall('p1', 'plan', { entries: plan }),
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'x' }, usage: step1Usage },
          ]
        : [
            ...text('planned'),
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: step1Usage },
          ],
    );
    const store = memorySessionStore();
    const app = createAiSdkAgent({
      name: 'u',
      version: '1',
      model,
      sessionStore: store,
      tools: { plan: planTool() },
      usage: {
        contextWindow: 200_000,
        prices: { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
      },
    });
    const client = await connect(app);
    const { sessionId } = await client.agent.request('session/new', { cwd: '/repo', mcpServers: [] });
    await client.prompt(sessionId, 'plan it');
    // Step cost: 800 × 3 + 200 × 0.3 + 100 × 15 per million = 0.00396.
    expect(client.of('usage_update')).toEqual([
      {
        sessionUpdate: 'usage_update',
        used: 1_100,
        size: 200_000,
        cost: { amount: 0.00396, currency: 'USD' },
      },
      {
        sessionUpdate: 'usage_update',
        used: 1_100,
        size: 200_000,
        cost: { amount: 0.00792, currency: 'USD' },
      },
    ]);
    expect(client.of('plan')).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the test', priority: 'high', status: 'completed' },
          { content: 'Fix the bug', priority: 'medium', status: 'in_progress' },
        ],
      },
    ]);
    const planCall = client.of('tool_call').find((call) => call.toolCallId === 'p1');
    expect(planCall?.kind).toBe('think');
    const stored = await store.get(sessionId);
    expect(stored?.state?.plan).toHaveLength(2);
    expect(stored?.state?.cost).toEqual({ amount: expect.closeTo(0.00792, 9), currency: 'USD' });
  });

  it('sends no usage_update without usage options (ACP needs the window size)', async () => {
    const model = scriptedModel(() => [...text('hi'), finish('stop')]);
    const client = await connect(createAiSdkAgent({ name: 'u', version: '1', model }));
    const { sessionId } = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    await client.prompt(sessionId, 'hi');
    expect(client.of('usage_update')).toEqual([]);
  });
});

describe('modes, models and config options', () => {
  function agent(store = memorySessionStore()) {
    const fast = scriptedModel(
      (call) => [...text(`fast: system=${systemOf(call)} tools=${toolsOf(call)}`), finish('stop')],
      'fast',
    );
    const smart = scriptedModel(
      (call) => [...text(`smart: temperature=${call.temperature}`), finish('stop')],
      'smart',
    );
    const noop = tool({ description: 'x', inputSchema: z.object({}), execute: async () => 'ok' });
    const app = createAiSdkAgent({
      name: 'm',
      version: '1',
      system: 'base system',
      sessionStore: store,
      tools: { readFile: noop, writeFile: noop },
      models: {
        fast: { model: fast, name: 'Fast' },
        smart: { model: smart, name: 'Smart', description: 'slow' },
      },
      modes: [
        { id: 'code', name: 'Code' },
        { id: 'ask', name: 'Ask', description: 'Read-only', system: 'ask system', tools: ['read*'] },
      ],
      configOptions: [
        {
          id: 'careful',
          name: 'Careful',
          type: 'boolean',
          default: false,
          callSettings: (value) => (value === true ? { temperature: 0 } : { temperature: 1 }),
        },
      ],
    });
    return { app, store };
  }
  const systemOf = (call: { prompt: readonly { role: string; content: unknown }[] }) =>
    call.prompt.find((message) => message.role === 'system')?.content;
  const toolsOf = (call: { tools?: readonly { name: string }[] }) =>
    (call.tools ?? []).map((entry) => entry.name).join(',');

  it('offers modes and a model option in session/new, switches them per session, announces the switch and keeps it in the store', async () => {
    const { app, store } = agent();
    const client = await connect(app);
    const created = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    expect(created.modes).toEqual({
      currentModeId: 'code',
      availableModes: [
        { id: 'code', name: 'Code' },
        { id: 'ask', name: 'Ask', description: 'Read-only' },
      ],
    });
    expect(
      created.configOptions?.map((option) => [option.id, option.category ?? null, option.currentValue]),
    ).toEqual([
      ['model', 'model', 'fast'],
      ['careful', null, false],
    ]);
    const { sessionId } = created;
    expect((await client.prompt(sessionId, 'hi')) && client.lastReply()).toMatchObject({
      content: { text: 'fast: system=base system tools=readFile,writeFile' },
    });

    await client.agent.request('session/set_mode', { sessionId, modeId: 'ask' });
    await client.waitFor((update) => update.sessionUpdate === 'current_mode_update');
    expect(client.of('current_mode_update')).toEqual([
      { sessionUpdate: 'current_mode_update', currentModeId: 'ask' },
    ]);
    await client.prompt(sessionId, 'hi');
    expect(client.lastReply()).toMatchObject({
      content: { text: 'fast: system=ask system tools=readFile' },
    });

    const set = await client.agent.request('session/set_config_option', {
      sessionId,
      configId: 'model',
      value: 'smart',
    });
    expect(set.configOptions[0]?.currentValue).toBe('smart');
    await client.agent.request('session/set_config_option', {
      sessionId,
      configId: 'careful',
      type: 'boolean',
      value: true,
    });
    await client.waitFor(
      (update) =>
        update.sessionUpdate === 'config_option_update' && update.configOptions[1]?.currentValue === true,
    );
    await client.prompt(sessionId, 'hi');
    expect(client.lastReply()).toMatchObject({ content: { text: 'smart: temperature=0' } });
    expect((await store.get(sessionId))?.state).toMatchObject({
      modeId: 'ask',
      config: { model: 'smart', careful: true },
    });

    // A second connection loads the session with its choices.
    const other = await connect(app);
    const loaded = await other.agent.request('session/load', { sessionId, cwd: '/', mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('ask');
    expect(loaded.configOptions?.[0]?.currentValue).toBe('smart');
  });

  it('refuses an unknown mode, option or value with -32602 naming what is allowed', async () => {
    const { app } = agent();
    const client = await connect(app);
    const { sessionId } = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => {
          throw new Error('expected a rejection');
        },
        (error: RequestError) => ({ code: error.code, message: error.message }),
      );
    expect(await failure(client.agent.request('session/set_mode', { sessionId, modeId: 'yolo' }))).toEqual({
      code: -32602,
      message: expect.stringContaining('use one of code, ask'),
    });
    expect(
      await failure(
        client.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'gpt-9' }),
      ),
    ).toEqual({
      code: -32602,
      message: expect.stringContaining('model must be one of fast, smart'),
    });
    expect(
      await failure(
        client.agent.request('session/set_config_option', { sessionId, configId: 'nope', value: 'x' }),
      ),
    ).toEqual({
      code: -32602,
      message: expect.stringContaining('no config option "nope"'),
    });
  });
});

describe('slash commands', () => {
  it('announces commands after session/new; /name runs a function or sends a prompt template to the model', async () => {
    const model = scriptedModel((call) => {
      const user = [...call.prompt].reverse().find((message) => message.role === 'user');
      const said =
        typeof user?.content === 'string'
          ? user.content
          : (user?.content ?? []).map((part) => part.text ?? '').join('');
      return [...text(`model got: ${said}`), finish('stop')];
    });
    const app = createAiSdkAgent({
      name: 'c',
      version: '1',
      model,
      commands: [
        {
          name: 'echo',
          description: 'Echo back',
          input: { hint: 'text' },
          run: ({ input }) => `echo: ${input}`,
        },
        { name: 'review', description: 'Review a file', prompt: 'Review $ARGUMENTS carefully.' },
        {
          name: 'broken',
          description: 'Fails',
          run: () => {
            throw new Error('disk full');
          },
        },
      ],
    });
    const client = await connect(app);
    const { sessionId } = await client.agent.request('session/new', { cwd: '/', mcpServers: [] });
    const announced = await client.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    expect(announced).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'echo', description: 'Echo back', input: { hint: 'text' } },
        { name: 'review', description: 'Review a file' },
        { name: 'broken', description: 'Fails' },
      ],
    });
    expect(await client.prompt(sessionId, '/echo hello there')).toEqual({ stopReason: 'end_turn' });
    expect(client.lastReply()).toMatchObject({ content: { text: 'echo: hello there' } });
    expect(model.calls).toHaveLength(0);
    await client.prompt(sessionId, '/review src/a.ts');
    expect(client.lastReply()).toMatchObject({
      content: { text: 'model got: Review src/a.ts carefully.' },
    });
    await expect(client.prompt(sessionId, '/broken')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('the command /broken failed: disk full'),
    });
    // An unknown command is a plain prompt.
    await client.prompt(sessionId, '/unknown x');
    expect(client.lastReply()).toMatchObject({ content: { text: 'model got: /unknown x' } });
  });
});

describe('@acpkit/testing transcripts', () => {
  it('record the plan, usage, diffs, mode and options a turn showed, and the modes and options of the session', async () => {
    const { connectTestClient } = await import('@acpkit/testing');
    const model = scriptedModel((call) =>
      toolResultCount(call) === 0
        ? [
            toolCall('p1', 'plan', { entries: [{ content: 'Do it', status: 'in_progress' }] }),
            finish('tool-calls'),
          ]
        : [...text('ok'), finish('stop')],
    );
    const app = createAiSdkAgent({
      name: 't',
      version: '1',
      model,
      tools: { plan: planTool() },
      usage: { contextWindow: 1_000 },
      modes: [{ id: 'code', name: 'Code' }],
      models: { only: { model, name: 'Only' } },
    });
    const client = await connectTestClient(app, {});
    try {
      expect(client.session.modes?.currentModeId).toBe('code');
      expect(client.session.configOptions?.[0]).toMatchObject({ id: 'model', currentValue: 'only' });
      const turn = await client.prompt('go');
      expect(turn.plan).toEqual([{ content: 'Do it', priority: 'medium', status: 'in_progress' }]);
      expect(turn.usage).toMatchObject({ sessionUpdate: 'usage_update', used: 15, size: 1_000 });
      expect(turn.diffs).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
