// DeepAgents through the same entry point (its sub-agents' tool calls shown, their text as thoughts) and plans from
// the todo list (todoListMiddleware's write_todos → ACP `plan`, the whole list each time).
import { connectTestClient, type TestClient, type TurnTranscript } from '@acpkit/testing';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createDeepAgent } from 'deepagents';
import { createAgent, todoListMiddleware, tool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLangChainAgent, type LangChainAgentOptions } from '../src/index.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(agent: LangChainAgentOptions['agent']): Promise<TestClient> {
  const client = await connectTestClient(
    createLangChainAgent({ name: 'test-agent', version: '1.0.0', agent }),
  );
  clients.push(client);
  return client;
}

function statusesOf(turn: TurnTranscript, toolCallId: string): string[] {
  return turn.updates
    .filter((update) => (update as { toolCallId?: string }).toolCallId === toolCallId)
    .map((update) => (update as { status?: string }).status)
    .filter((status): status is string => status !== undefined);
}

const lookup = tool(async ({ id }) => `Record ${id}: 42.`, {
  name: 'lookup',
  description: 'Look a record up.',
  schema: z.object({ id: z.string() }),
});

describe('deepagents', () => {
  it("a sub-agent's tool calls are shown with their results; its text is thought, the main answer is the message", async () => {
    const model = fakeModel()
      .respondWithTools([
        { name: 'task', args: { description: 'Look up r1', subagent_type: 'researcher' }, id: 'task-1' },
      ])
      .respondWithTools([{ name: 'lookup', args: { id: 'r1' }, id: 'sub-1' }])
      .respond(new AIMessage('Sub-agent found r1.'))
      .respond(new AIMessage('The record r1 holds 42.'));
    const agent = createDeepAgent({
      model,
      tools: [lookup],
      subagents: [
        { name: 'researcher', description: 'Looks records up.', systemPrompt: 'Research.', tools: [lookup] },
      ],
    });
    const client = await connect(agent);
    const turn = await client.prompt('What is in r1?');
    expect(turn.stopReason).toBe('end_turn');
    expect(statusesOf(turn, 'task-1')).toEqual(['pending', 'in_progress', 'completed']);
    expect(statusesOf(turn, 'sub-1')).toEqual(['pending', 'in_progress', 'completed']);
    const subResult = turn.updates.find(
      (update) =>
        (update as { toolCallId?: string; status?: string }).toolCallId === 'sub-1' &&
        (update as { status?: string }).status === 'completed',
    );
    expect(JSON.stringify(subResult)).toContain('Record r1: 42.');
    const taskCall = turn.updates.find(
      (update) => update.sessionUpdate === 'tool_call' && update.toolCallId === 'task-1',
    );
    expect(taskCall).toMatchObject({ title: 'task', kind: 'think' });
    // The sub-agent's call comes after the task call and before the task's result.
    const order = turn.updates.map(
      (update) =>
        `${(update as { toolCallId?: string }).toolCallId}:${(update as { status?: string }).status}`,
    );
    expect(order.indexOf('task-1:in_progress')).toBeLessThan(order.indexOf('sub-1:pending'));
    expect(order.indexOf('sub-1:completed')).toBeLessThan(order.indexOf('task-1:completed'));
    const thoughts = turn.updates.filter((update) => update.sessionUpdate === 'agent_thought_chunk');
    expect(JSON.stringify(thoughts)).toContain('Sub-agent found r1.');
    expect(turn.text.endsWith('The record r1 holds 42.')).toBe(true);
    expect(turn.text).not.toContain('Sub-agent found r1.');
  });
});

describe('plans', () => {
  it('each write_todos is one plan update with the whole list and ACP statuses', async () => {
    const model = fakeModel()
      .respondWithTools([
        {
          name: 'write_todos',
          args: {
            todos: [
              { content: 'Read the code', status: 'in_progress' },
              { content: 'Fix the bug', status: 'pending' },
            ],
          },
          id: 'todo-1',
        },
      ])
      .respondWithTools([
        {
          name: 'write_todos',
          args: {
            todos: [
              { content: 'Read the code', status: 'completed' },
              { content: 'Fix the bug', status: 'in_progress' },
            ],
          },
          id: 'todo-2',
        },
      ])
      .respond(new AIMessage('Working on it.'));
    const client = await connect(createAgent({ model, tools: [], middleware: [todoListMiddleware()] }));
    const turn = await client.prompt('fix it');
    const plans = turn.updates.filter((update) => update.sessionUpdate === 'plan');
    expect(plans).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'medium', status: 'in_progress' },
          { content: 'Fix the bug', priority: 'medium', status: 'pending' },
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'medium', status: 'completed' },
          { content: 'Fix the bug', priority: 'medium', status: 'in_progress' },
        ],
      },
    ]);
  });
});
