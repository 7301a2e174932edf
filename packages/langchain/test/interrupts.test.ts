// Interrupts over ACP: humanInTheLoopMiddleware's review as session/request_permission (allow once, allow always,
// edit as a typed form, reject, cancel), a node's interrupt({ question, … }) as askChoice / askForm / askText, the
// fallback for a client without forms, and cancellation (a hanging tool, a pending permission request) with the next
// turn working.
import {
  connectTestClient,
  type TestClient,
  type TestClientOptions,
  type TurnTranscript,
} from '@acpkit/testing';
import { RequestError } from '@agentclientprotocol/sdk';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Annotation, interrupt, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLangChainAgent, type LangChainAgentOptions } from '../src/index.js';

const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(
  agent: LangChainAgentOptions['agent'],
  clientOptions: TestClientOptions = {},
): Promise<TestClient> {
  const client = await connectTestClient(
    createLangChainAgent({ name: 'test-agent', version: '1.0.0', agent }),
    clientOptions,
  );
  clients.push(client);
  return client;
}

function finalStatus(turn: TurnTranscript, toolCallId: string): string | undefined {
  return turn.updates
    .filter((update) => (update as { toolCallId?: string }).toolCallId === toolCallId)
    .map((update) => (update as { status?: string }).status)
    .filter((status) => status !== undefined)
    .at(-1);
}

function deployAgent(runs: string[]) {
  const deploy = tool(
    async ({ environment, replicas }) => {
      runs.push(`${environment}:${replicas}`);
      return `Deployed ${replicas} to ${environment}.`;
    },
    {
      name: 'deploy',
      description: 'Deploy the service.',
      schema: z.object({
        environment: z.enum(['staging', 'production']).meta({ title: 'Environment' }),
        replicas: z.int().min(1).max(5).meta({ title: 'Replicas' }),
      }),
    },
  );
  const model = fakeModel();
  for (let index = 0; index < 4; index += 1) {
    model.respondWithTools([
      { name: 'deploy', args: { environment: 'staging', replicas: 2 }, id: `d${index}` },
    ]);
    model.respond(new AIMessage(`Done ${index}.`));
  }
  return createAgent({
    model,
    tools: [deploy],
    middleware: [humanInTheLoopMiddleware({ interruptOn: { deploy: true } })],
  });
}

describe('humanInTheLoopMiddleware → session/request_permission', () => {
  it('allow once runs the call; allow always stops asking for that tool in the session', async () => {
    const runs: string[] = [];
    let answer = 'allow_once';
    const asked: string[][] = [];
    const client = await connect(deployAgent(runs), {
      permissions: (request) => {
        asked.push(request.options.map((option) => option.optionId));
        return { outcome: { outcome: 'selected', optionId: answer } };
      },
    });
    const first = await client.prompt('deploy');
    expect(first.permissions).toHaveLength(1);
    expect(asked[0]).toEqual(['allow_once', 'allow_always', 'edit', 'reject_once']);
    expect(first.permissions[0]?.request.toolCall).toMatchObject({
      toolCallId: 'd0',
      title: 'deploy',
      status: 'pending',
    });
    expect(finalStatus(first, 'd0')).toBe('completed');
    answer = 'allow_always';
    await client.prompt('again');
    const third = await client.prompt('and again');
    expect(third.permissions).toHaveLength(0);
    expect(finalStatus(third, 'd2')).toBe('completed');
    expect(runs).toEqual(['staging:2', 'staging:2', 'staging:2']);
  });

  it('reject: the call fails with the reason, never runs, and the model is told', async () => {
    const runs: string[] = [];
    const client = await connect(deployAgent(runs), { permissions: 'reject' });
    const turn = await client.prompt('deploy');
    expect(finalStatus(turn, 'd0')).toBe('failed');
    expect(runs).toEqual([]);
    expect(JSON.stringify(turn.updates)).toContain('The user rejected this tool call; it did not run.');
    expect(turn.text).toContain('Done 0.');
  });

  it('edit: a typed form from the tool schema, prefilled with the model arguments; the call runs with the edit', async () => {
    const runs: string[] = [];
    const client = await connect(deployAgent(runs), {
      permissions: () => ({ outcome: { outcome: 'selected', optionId: 'edit' } }),
      answers: [{ Environment: 'production', Replicas: '4' }],
    });
    const turn = await client.prompt('deploy');
    expect(turn.elicitations).toHaveLength(1);
    const schema = turn.elicitations[0]?.request as {
      requestedSchema?: { properties: Record<string, { default?: unknown }> };
    };
    expect(schema.requestedSchema?.properties.replicas?.default).toBe(2);
    expect(runs).toEqual(['production:4']);
    expect(finalStatus(turn, 'd0')).toBe('completed');
    expect(
      turn.updates.some(
        (update) => (update as { rawInput?: { replicas?: number } }).rawInput?.replicas === 4,
      ),
    ).toBe(true);
  });

  it('a client without form elicitation is not offered the edit option', async () => {
    const runs: string[] = [];
    const offered: string[][] = [];
    const client = await connect(deployAgent(runs), {
      clientCapabilities: {},
      permissions: (request) => {
        offered.push(request.options.map((option) => option.optionId));
        return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
      },
    });
    await client.prompt('deploy');
    expect(offered[0]).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(runs).toHaveLength(1);
  });

  it('a cancelled permission request ends the turn cancelled; the next prompt runs afresh', async () => {
    const runs: string[] = [];
    let cancel = true;
    const client = await connect(deployAgent(runs), {
      permissions: () =>
        cancel
          ? { outcome: { outcome: 'cancelled' } }
          : { outcome: { outcome: 'selected', optionId: 'allow_once' } },
    });
    const turn = await client.prompt('deploy');
    expect(turn.stopReason).toBe('cancelled');
    expect(finalStatus(turn, 'd0')).toBe('failed');
    expect(runs).toEqual([]);
    cancel = false;
    const next = await client.prompt('try again');
    expect(next.stopReason).toBe('end_turn');
    expect(runs).toEqual([]);
  });
});

describe('interrupt() questions', () => {
  const State = Annotation.Root({ ...MessagesAnnotation.spec });
  function questionGraph() {
    return new StateGraph(State)
      .addNode('ask', () => {
        const target = interrupt({
          question: 'Where to?',
          choices: [{ value: 'eu', label: 'Europe' }, 'us'],
        });
        const details = interrupt({
          question: 'Release details',
          schema: z.object({ version: z.string().meta({ title: 'Version' }) }),
        });
        const note = interrupt('Any note?');
        return { messages: [new AIMessage(JSON.stringify({ target, details, note }))] };
      })
      .addEdge('__start__', 'ask')
      .compile();
  }

  it('choices → askChoice, schema → askForm, a string → askText; each answer resumes the graph', async () => {
    const client = await connect(questionGraph(), {
      answers: [{ Choice: 'Europe' }, { Version: '1.2.0' }, { Answer: 'ship it' }],
    });
    const turn = await client.prompt('start');
    expect(turn.elicitations).toHaveLength(3);
    expect(JSON.parse(turn.text)).toEqual({
      target: { status: 'accepted', answer: 'eu' },
      details: { status: 'accepted', answer: { version: '1.2.0' } },
      note: { status: 'accepted', answer: 'ship it' },
    });
  });

  it('a client without form elicitation: each question resumes with status unsupported, never a hang', async () => {
    const client = await connect(questionGraph(), { clientCapabilities: {} });
    const turn = await client.prompt('start');
    const answers = JSON.parse(turn.text) as Record<string, { status: string }>;
    expect(Object.values(answers).map((answer) => answer.status)).toEqual([
      'unsupported',
      'unsupported',
      'unsupported',
    ]);
  });

  it('an interrupt value it cannot ask about fails the prompt saying which shapes work', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('ask', () => {
        interrupt({ something: 1 });
        return {};
      })
      .addEdge('__start__', 'ask')
      .compile();
    const client = await connect(graph);
    await expect(client.prompt('start')).rejects.toSatisfy(
      (error) => error instanceof RequestError && /\{ question, choices \}/.test(error.message),
    );
  });
});

describe('cancellation', () => {
  it('session/cancel aborts a hanging tool through the run signal; the next turn works', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted = false;
    const hang = tool(
      (_input, config) =>
        new Promise<string>((_resolve, reject) => {
          started();
          config?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
      { name: 'hang', description: 'Never ends.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: 'hang', args: {}, id: 'h1' }])
      .respond(new AIMessage('Back.'));
    const client = await connect(createAgent({ model, tools: [hang] }));
    const turn = client.prompt('hang');
    await running;
    await client.cancel();
    const ended = await turn;
    expect(ended.stopReason).toBe('cancelled');
    expect(finalStatus(ended, 'h1')).toBe('failed');
    expect(aborted).toBe(true);
    const next = await client.prompt('hello');
    expect(next.stopReason).toBe('end_turn');
    expect(next.text).toBe('Back.');
  });

  it('session/cancel while a permission request is pending ends the turn cancelled, nothing runs', async () => {
    const runs: string[] = [];
    let asked!: () => void;
    const pending = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const client = await connect(deployAgent(runs), {
      permissions: () =>
        new Promise(() => {
          asked();
        }),
    });
    const turn = client.prompt('deploy');
    await pending;
    await client.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect(runs).toEqual([]);
  });
});
