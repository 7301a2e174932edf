// createLangChainAgent in-process over the SDK (through @acpkit/testing): streamed text and reasoning, tool calls and
// their statuses, stop reasons, and turns that fail (a graph that throws, a model that fails mid-stream, a tool that
// throws) ending cleanly with the session still usable.
import { connectTestClient, type TestClient, type TurnTranscript } from '@acpkit/testing';
import { RequestError, type SessionUpdate } from '@agentclientprotocol/sdk';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLangChainAgent, type LangChainAgentOptions } from '../src/index.js';
import { ScriptedStreamingModel, toolCallChunks } from './support/models.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(agent: LangChainAgentOptions['agent'], options: Partial<LangChainAgentOptions> = {}) {
  const client = await connectTestClient(
    createLangChainAgent({ name: 'test-agent', version: '1.0.0', agent, ...options }),
  );
  clients.push(client);
  return client;
}

function kinds(turn: TurnTranscript): string[] {
  return turn.updates.map((update) => update.sessionUpdate);
}

function chunks(turn: TurnTranscript, kind: 'agent_message_chunk' | 'agent_thought_chunk'): string[] {
  return turn.updates
    .filter((update) => update.sessionUpdate === kind)
    .map((update) => (update as { content: { text: string } }).content.text);
}

/** The tool-call updates of a turn as `[toolCallId, status]` pairs, in order. */
function statuses(turn: TurnTranscript): Array<[string, string | null | undefined]> {
  return turn.updates
    .filter((update) => update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update')
    .filter((update) => (update as { status?: string }).status !== undefined)
    .map((update) => [(update as { toolCallId: string }).toolCallId, (update as { status?: string }).status]);
}

async function failure(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}

const weather = tool(async ({ city }) => `Sunny in ${city}.`, {
  name: 'weather',
  description: 'The weather in a city.',
  schema: z.object({ city: z.string() }),
});

describe('streaming', () => {
  it('streams each token once, in order, reasoning as thoughts, and ends the turn end_turn', async () => {
    const model = new ScriptedStreamingModel([
      [
        new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'The user greets me.' }] }),
        'Hel',
        'lo',
        ' there',
      ],
    ]);
    const client = await connect(createAgent({ model, tools: [] }));
    const turn = await client.prompt('hi');
    expect(turn.stopReason).toBe('end_turn');
    expect(chunks(turn, 'agent_thought_chunk')).toEqual(['The user greets me.']);
    expect(chunks(turn, 'agent_message_chunk')).toEqual(['Hel', 'lo', ' there']);
    expect(kinds(turn)).toEqual([
      'session_info_update',
      'agent_thought_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
    ]);
  });

  it('maps the provider finish reason: length is max_tokens, content_filter is refusal', async () => {
    const model = new ScriptedStreamingModel([
      ['Cut', new AIMessageChunk({ content: '', response_metadata: { finish_reason: 'length' } })],
      [new AIMessageChunk({ content: '', response_metadata: { finish_reason: 'content_filter' } })],
    ]);
    const client = await connect(createAgent({ model, tools: [] }));
    expect((await client.prompt('one')).stopReason).toBe('max_tokens');
    expect((await client.prompt('two')).stopReason).toBe('refusal');
  });

  it('a plain compiled StateGraph with messages works through the same entry point', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('reply', () => ({ messages: [new AIMessage('From a node.')] }))
      .addEdge('__start__', 'reply')
      .compile();
    const client = await connect(graph);
    const turn = await client.prompt('hi');
    expect(turn.text).toBe('From a node.');
    expect(turn.stopReason).toBe('end_turn');
  });
});

describe('tool calls', () => {
  it('a streamed call goes pending → in_progress → completed with its result, each status once', async () => {
    const model = new ScriptedStreamingModel([
      ['Checking. ', ...toolCallChunks('call-1', 'weather', { city: 'Paris' })],
      ['It is sunny.'],
    ]);
    const client = await connect(createAgent({ model, tools: [weather] }));
    const turn = await client.prompt('weather in Paris?');
    expect(statuses(turn)).toEqual([
      ['call-1', 'pending'],
      ['call-1', 'in_progress'],
      ['call-1', 'completed'],
    ]);
    const first = turn.updates.find((update) => update.sessionUpdate === 'tool_call') as Extract<
      SessionUpdate,
      { sessionUpdate: 'tool_call' }
    >;
    expect(first).toMatchObject({ toolCallId: 'call-1', title: 'weather', kind: 'other' });
    const withInput = turn.updates.find(
      (update) => update.sessionUpdate === 'tool_call_update' && 'rawInput' in update,
    );
    expect(withInput).toMatchObject({ rawInput: { city: 'Paris' } });
    const done = turn.updates.at(-2) as Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
    expect(done.content).toEqual([{ type: 'content', content: { type: 'text', text: 'Sunny in Paris.' } }]);
    expect(turn.text).toBe('Checking. It is sunny.');
    // The text before the call comes before the call.
    expect(kinds(turn).indexOf('agent_message_chunk')).toBeLessThan(kinds(turn).indexOf('tool_call'));
  });

  it('whole messages with several calls (fakeModel): every call announced once, all completed', async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: 'weather', args: { city: 'Paris' }, id: 'a' },
        { name: 'weather', args: { city: 'Rome' }, id: 'b' },
      ])
      .respond(new AIMessage('Both sunny.'));
    const client = await connect(createAgent({ model, tools: [weather] }), {
      describeToolCall: ({ toolName, input }) => ({
        title: `${toolName} ${(input as { city?: string } | undefined)?.city}`,
        kind: 'fetch',
      }),
    });
    const turn = await client.prompt('two cities');
    const announced = turn.updates.filter((update) => update.sessionUpdate === 'tool_call');
    expect(announced.map((update) => (update as { title: string }).title)).toEqual([
      'weather Paris',
      'weather Rome',
    ]);
    expect(
      statuses(turn)
        .filter(([, status]) => status === 'completed')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(turn.text.endsWith('Both sunny.')).toBe(true);
  });

  it('a tool that throws ends its call failed with the error, and the model goes on', async () => {
    const broken = tool(
      async () => {
        throw new Error('disk full');
      },
      { name: 'save', description: 'Save.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'save', args: {}, id: 's1' }])
      .respond(new AIMessage('Could not save.'));
    const client = await connect(createAgent({ model, tools: [broken] }));
    const turn = await client.prompt('save');
    expect(statuses(turn).at(-1)).toEqual(['s1', 'failed']);
    expect(JSON.stringify(turn.updates)).toContain('disk full');
  });
});

describe('turns that fail', () => {
  it('a graph that throws fails the prompt with its message; the next turn works', async () => {
    let calls = 0;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('reply', () => {
        calls += 1;
        if (calls === 1) throw new Error('the node broke');
        return { messages: [new AIMessage('Fine now.')] };
      })
      .addEdge('__start__', 'reply')
      .compile();
    const client = await connect(graph);
    const error = await failure(client.prompt('one'));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('the graph failed: the node broke');
    expect((await client.prompt('two')).text).toBe('Fine now.');
  });

  it('a model that fails mid-stream: the streamed text stays, the open call fails, the prompt fails with the cause', async () => {
    const model = new ScriptedStreamingModel([
      [
        'Part',
        ...toolCallChunks('c9', 'weather', { city: 'Oslo' }).slice(0, 1),
        new Error('provider overloaded (529)'),
      ],
      ['Recovered.'],
    ]);
    const client = await connect(createAgent({ model, tools: [weather] }));
    const error = await failure(client.prompt('go'));
    expect(error.message).toContain('provider overloaded (529)');
    const events = client.transcript
      .filter((event) => event.kind === 'session-update')
      .map((event) => (event as { update: SessionUpdate }).update);
    expect(events.some((update) => update.sessionUpdate === 'agent_message_chunk')).toBe(true);
    const last = events.filter((update) => 'toolCallId' in update).at(-1);
    expect(last).toMatchObject({ toolCallId: 'c9', status: 'failed' });
    expect((await client.prompt('again')).text).toBe('Recovered.');
  });

  it('reaching recursionLimit ends the turn max_turn_requests', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'weather', args: { city: 'A' }, id: 'r1' }])
      .respondWithTools([{ name: 'weather', args: { city: 'B' }, id: 'r2' }])
      .respondWithTools([{ name: 'weather', args: { city: 'C' }, id: 'r3' }]);
    const client = await connect(createAgent({ model, tools: [weather] }), { recursionLimit: 3 });
    const turn = await client.prompt('loop');
    expect(turn.stopReason).toBe('max_turn_requests');
    expect(
      statuses(turn).filter(([, status]) => status === 'pending' || status === 'in_progress').length,
    ).toBeGreaterThan(0);
    expect(statuses(turn).at(-1)?.[1]).toMatch(/completed|failed/);
  });
});
