// The @acpkit/ai-sdk adapter's cost per streamed chunk and per tool call, in CPU time (process.cpuUsage: on this
// shared machine wall-clock time mostly measures the neighbours, and the AI SDK's own work per stream part, tens of µs
// of web-stream hops, dwarfs the difference we look for). Two same-run references: draining the same model's
// `streamText` full stream directly (what the AI SDK costs), and the fastest minimal ACP agent we can write around it
// (`minimalAcpAgent`: one `session/update` per delta or tool event, nothing else), so ours minus it is the adapter's
// own cost and ours minus streamText is everything ACP adds. Ours is a whole ACP turn: a
// `session/prompt` written to the agent app over an in-memory message stream, every `session/update` it sends read
// back, until its response (the SDK's agent side included, as every ACP agent pays it; no JSON text and no client
// parsing, which are the transport's and the client's). The model is the AI SDK's own mock (MockLanguageModelV3)
// replaying a prepared stream, so the model costs nothing and both sides do the same AI SDK work.

import { randomUUID } from 'node:crypto';
import { type AiSdkMcpServers, createAiSdkAgent, planTool } from '@acpkit/ai-sdk';
import { editorMcpServers } from '@acpkit/ai-sdk/mcp';
import { type AgentApp, agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { type ModelMessage, stepCountIs, streamText, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import {
  adapterFigures,
  connectedClient,
  measureRound,
  type Side,
  TURNS_PER_ROUND,
} from './adapter-turns.js';
import { startMcpFixture } from './mcp-fixture.js';
import type { FigureRecord } from './report.js';

/** MCP tools each session of the "MCP tools and plans on" group connects (over HTTP, to a real MCP server). */
const MCP_TOOLS = 20;

/** Text deltas per turn: enough that the turn's fixed costs (prompt parsing, session lookup) are small per chunk. */
const CHUNKS = 500;
/** Tool calls per turn, all in one step, then one more step that answers. */
const TOOL_CALLS = 50;

type Part = Record<string, unknown> & { type: string };

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function streamOf(parts: readonly Part[]): ReadableStream<Part> {
  return new ReadableStream<Part>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

const textParts: Part[] = [
  { type: 'text-start', id: 't' },
  ...Array.from(
    { length: CHUNKS },
    (_, index): Part => ({ type: 'text-delta', id: 't', delta: `word${index} ` }),
  ),
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];
const toolStep: Part[] = [
  ...Array.from(
    { length: TOOL_CALLS },
    (_, index): Part => ({
      type: 'tool-call',
      toolCallId: `call-${index}`,
      toolName: 'noop',
      input: '{"n":1}',
    }),
  ),
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
];
const answerStep: Part[] = [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'done' },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

/** The streaming model: every call replays CHUNKS text deltas. */
function textModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doStream: async () => ({ stream: streamOf(textParts) as never }) });
}

/** The tool model: TOOL_CALLS calls of `noop`, then (when the last message is the tools' results) an answer. */
function toolModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => ({
      stream: streamOf(prompt.at(-1)?.role === 'tool' ? answerStep : toolStep) as never,
    }),
  });
}

const tools = {
  noop: tool({
    description: 'Does nothing.',
    inputSchema: z.object({ n: z.number() }),
    execute: async () => 'ok',
  }),
} satisfies ToolSet;

/** Keeps results observable so the JIT cannot drop the work. */
let sink = 0;
const prompt: ModelMessage[] = [{ role: 'user', content: 'go' }];

async function streamTextDirectly(
  model: MockLanguageModelV3,
  withTools: boolean,
  toolSet: ToolSet = tools,
): Promise<void> {
  const result = streamText({
    model,
    messages: prompt,
    ...(withTools ? { tools: toolSet, stopWhen: stepCountIs(2) } : {}),
    onError: () => undefined,
  });
  for await (const part of result.fullStream) sink += part.type.length;
}

/**
 * The reference adapter: the least an ACP agent around streamText must do (a `session/update` per text delta, per
 * tool call and per tool result, awaited in order), with no history, sessions, approvals, questions or transcript.
 */
function minimalAcpAgent(model: MockLanguageModelV3, withTools: boolean, toolSet: ToolSet = tools): AgentApp {
  return agent({ name: 'minimal' })
    .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const { sessionId } = params;
      const result = streamText({
        model,
        messages: prompt,
        ...(withTools ? { tools: toolSet, stopWhen: stepCountIs(2) } : {}),
        onError: () => undefined,
      });
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          await client.notify(methods.client.session.update, {
            sessionId,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: part.text } },
          });
        } else if (part.type === 'tool-call') {
          await client.notify(methods.client.session.update, {
            sessionId,
            update: {
              sessionUpdate: 'tool_call',
              toolCallId: part.toolCallId,
              title: part.toolName,
              rawInput: part.input,
            },
          });
        } else if (part.type === 'tool-result') {
          await client.notify(methods.client.session.update, {
            sessionId,
            update: { sessionUpdate: 'tool_call_update', toolCallId: part.toolCallId, status: 'completed' },
          });
        }
      }
      return { stopReason: 'end_turn' };
    });
}

/**
 * Runs a warm-up round and then `repeats` rounds of {@link measureRound} per group. Returns microseconds of CPU per chunk and per tool call, ours against streamText
 * directly, and ours minus the baseline of the same round (the adapter's own cost; target: under 5 µs per chunk).
 *
 * @example
 * ```ts
 * const records = await runAiSdkSection({ repeats: 5, log: console.error });
 * ```
 */
export async function runAiSdkSection(options: {
  repeats: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const text = textModel();
  const withTools = toolModel();
  const ours = (model: MockLanguageModelV3, withTools: boolean) =>
    createAiSdkAgent({
      name: 'bench',
      version: '0.0.0',
      model,
      ...(withTools ? { tools, maxSteps: 2 } : {}),
    });
  const none = async () => undefined;
  // The editor's MCP servers for real (an HTTP MCP server with MCP_TOOLS tools), each session's connection awaited
  // while its round is prepared, outside the measured time; and planTool in the tool set.
  const fixture = await startMcpFixture(MCP_TOOLS);
  const connecting: Promise<unknown>[] = [];
  const inner = editorMcpServers();
  const mcp: AiSdkMcpServers = {
    capabilities: inner.capabilities,
    connect: (servers, context) => {
      const connected = inner.connect(servers, context);
      connecting.push(connected);
      return connected;
    },
  };
  const mcpServers = [{ type: 'http', name: 'bench', url: fixture.url, headers: [] }];
  const withMcpAndPlan = createAiSdkAgent({
    name: 'bench',
    version: '0.0.0',
    model: text,
    tools: { plan: planTool() },
    mcp,
    usage: { contextWindow: 200_000 },
  });
  const mcpClient = await connectedClient(withMcpAndPlan);
  // The references get the same tools (the plan tool and the same server's MCP tools), so the difference is ours.
  const reference = await inner.connect(mcpServers as never, { sessionId: 'reference', cwd: '/' });
  const sameTools: ToolSet = { plan: planTool(), ...reference.tools };
  const mcpSide: Side = {
    name: 'createAiSdkAgent, text, MCP tools and plan on',
    prepare: async () => {
      await mcpClient.openSessions(TURNS_PER_ROUND, mcpServers);
      await Promise.all(connecting.splice(0));
    },
    turn: () => mcpClient.prompt(CHUNKS),
  };
  const turnsOf = async (name: string, app: AgentApp, expectedUpdates: number): Promise<Side> => {
    const client = await connectedClient(app);
    return {
      name,
      prepare: () => client.openSessions(TURNS_PER_ROUND),
      turn: () => client.prompt(expectedUpdates),
    };
  };
  // Per group: streamText directly, the minimal ACP agent, ours.
  const groups: Side[][] = [
    [
      { name: 'streamText, text', prepare: none, turn: () => streamTextDirectly(text, false) },
      await turnsOf('minimal ACP agent, text', minimalAcpAgent(text, false), CHUNKS),
      await turnsOf('createAiSdkAgent, text', ours(text, false), CHUNKS),
    ],
    [
      { name: 'streamText, tools', prepare: none, turn: () => streamTextDirectly(withTools, true) },
      await turnsOf('minimal ACP agent, tools', minimalAcpAgent(withTools, true), 2 * TOOL_CALLS),
      await turnsOf('createAiSdkAgent, tools', ours(withTools, true), 2 * TOOL_CALLS),
    ],
    [
      {
        name: 'streamText, text, same tools',
        prepare: none,
        turn: () => streamTextDirectly(text, true, sameTools),
      },
      await turnsOf('minimal ACP agent, text, same tools', minimalAcpAgent(text, true, sameTools), CHUNKS),
      mcpSide,
    ],
  ];
  // perTurn[group][side]: CPU µs per turn, one value per measured round (round 0 warms up).
  const perTurn = groups.map((sides) => sides.map((): number[] => []));
  for (let round = 0; round <= options.repeats; round += 1) {
    for (const [groupIndex, sides] of groups.entries()) {
      const medians = await measureRound(sides);
      if (round === 0) continue;
      for (const [sideIndex, value] of medians.entries()) perTurn[groupIndex]?.[sideIndex]?.push(value);
    }
  }
  await reference.close();
  await fixture.close();
  options.log(`ai-sdk benchmarks done (sink ${sink > 0 ? 'used' : 'empty'})`);
  const labels = {
    section: 'ai-sdk',
    ours: 'createAiSdkAgent turn',
    minimal: 'minimal ACP agent around streamText, same run',
    direct: 'streamText drained directly',
    directFigure: 'streamtext',
  };
  return [
    ...adapterFigures(labels, 'ai-sdk-chunk', 'chunk', CHUNKS, perTurn[0]),
    ...adapterFigures(labels, 'ai-sdk-tool-call', 'tool-call', TOOL_CALLS, perTurn[1]),
    ...adapterFigures(labels, 'ai-sdk-chunk-mcp-plan', 'chunk', CHUNKS, perTurn[2]).map((record) => ({
      ...record,
      figure: record.figure.replace('per-chunk', 'per-chunk-mcp-plan'),
      pathLabel: `${record.pathLabel} (${MCP_TOOLS} MCP tools + planTool + usage on)`,
    })),
  ];
}
