// The @acpkit/langchain adapter's cost per streamed chunk and per tool call, in CPU time, measured as the AI SDK one
// (adapter-turns.ts): the same LangChain agent (`createAgent`, a MemorySaver) three ways, in the same rounds: its
// stream drained directly (`streamMode: 'messages'`: what LangGraph costs), the smallest ACP agent around that stream
// (a `session/update` per text chunk, per tool call and per ToolMessage, nothing else), and createLangChainAgent.
// Ours minus the minimal agent is the adapter's own cost (target < 5 µs per chunk). The model replays prepared
// chunks, so it costs the same on every side.
import { randomUUID } from 'node:crypto';
import { createLangChainAgent } from '@acpkit/langchain';
import {
  type AgentApp,
  agent,
  methods,
  PROTOCOL_VERSION,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import {
  adapterFigures,
  connectedClient,
  measureRound,
  type Side,
  TURNS_PER_ROUND,
} from './adapter-turns.js';
import type { FigureRecord } from './report.js';

/** Text chunks per turn. */
const CHUNKS = 500;
/** Tool calls per turn, all in one model message, then one more model call that answers. */
const TOOL_CALLS = 50;

/** Replays prepared chunks: `CHUNKS` text chunks, or TOOL_CALLS calls then (after the results) an answer. */
class ReplayModel extends BaseChatModel {
  readonly #withTools: boolean;

  constructor(withTools: boolean) {
    super({});
    this.#withTools = withTools;
  }

  _llmType(): string {
    return 'bench-replay';
  }

  override bindTools(): never {
    return this as never;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const chunks = this.#replay(messages);
    const message = chunks
      .slice(1)
      .reduce((joined, chunk) => joined.concat(chunk), chunks[0] as AIMessageChunk);
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }

  #replay(messages: BaseMessage[]): AIMessageChunk[] {
    if (!this.#withTools) return textChunks();
    return messages.at(-1)?.getType() === 'tool'
      ? [new AIMessageChunk({ content: 'done' })]
      : [toolCallsChunk()];
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for (const message of this.#replay(messages)) {
      const text = typeof message.content === 'string' ? message.content : '';
      const chunk = new ChatGenerationChunk({ message, text });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

function textChunks(): AIMessageChunk[] {
  return Array.from({ length: CHUNKS }, (_, index) => new AIMessageChunk({ content: `word${index} ` }));
}

function toolCallsChunk(): AIMessageChunk {
  return new AIMessageChunk({
    content: '',
    tool_call_chunks: Array.from({ length: TOOL_CALLS }, (_, index) => ({
      id: `call-${index}`,
      name: 'noop',
      args: '{"n":1}',
      index,
      type: 'tool_call_chunk' as const,
    })),
  });
}

const noop = tool(async () => 'ok', {
  name: 'noop',
  description: 'Does nothing.',
  schema: z.object({ n: z.number() }),
});

function graphOf(withTools: boolean) {
  return createAgent({
    model: new ReplayModel(withTools),
    tools: withTools ? [noop] : [],
    checkpointer: new MemorySaver(),
  });
}

type Graph = ReturnType<typeof graphOf>;
let sink = 0;

async function streamDirectly(graph: Graph): Promise<void> {
  const stream = await graph.stream(
    { messages: [{ role: 'user', content: 'go' }] },
    { configurable: { thread_id: randomUUID() }, streamMode: 'messages' },
  );
  for await (const [message] of stream) sink += message.getType().length;
}

/** The least an ACP agent around the graph's message stream must do. */
function minimalAcpAgent(graph: Graph): AgentApp {
  return agent({ name: 'minimal' })
    .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const { sessionId } = params;
      const notify = (update: SessionUpdate) =>
        client.notify(methods.client.session.update, { sessionId, update });
      // Tokens come in `messages` mode; ToolMessages of tools run one task per call only in `updates`.
      const stream = await graph.stream(
        { messages: [{ role: 'user', content: 'go' }] },
        { configurable: { thread_id: sessionId }, streamMode: ['messages', 'updates'] },
      );
      for await (const [mode, payload] of stream) {
        if (mode === 'updates') {
          const results =
            (payload as { tools?: { messages?: Array<{ tool_call_id?: string }> } }).tools?.messages ?? [];
          for (const result of results) {
            if (result.tool_call_id) {
              await notify({
                sessionUpdate: 'tool_call_update',
                toolCallId: result.tool_call_id,
                status: 'completed',
              });
            }
          }
          continue;
        }
        const [message] = payload as unknown as [AIMessageChunk];
        if (typeof message.content === 'string' && message.content !== '') {
          await notify({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: message.content },
          });
        }
        for (const call of message.tool_call_chunks ?? []) {
          if (call.id)
            await notify({ sessionUpdate: 'tool_call', toolCallId: call.id, title: call.name ?? 'tool' });
        }
      }
      return { stopReason: 'end_turn' };
    });
}

/**
 * Runs a warm-up round and then `repeats` rounds per group. Returns µs of CPU per chunk and per tool call: ours, the
 * graph's stream drained directly, ours minus the minimal ACP agent (the adapter's own cost; target < 5 µs per
 * chunk), and ours minus the direct stream.
 *
 * @example
 * ```ts
 * const records = await runLangChainSection({ repeats: 5, log: console.error });
 * ```
 */
export async function runLangChainSection(options: {
  repeats: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const none = async () => undefined;
  const turnsOf = async (name: string, app: AgentApp, expectedUpdates: number): Promise<Side> => {
    const client = await connectedClient(app);
    return {
      name,
      prepare: () => client.openSessions(TURNS_PER_ROUND),
      turn: () => client.prompt(expectedUpdates),
    };
  };
  const ours = (graph: Graph) => createLangChainAgent({ name: 'bench', version: '0.0.0', agent: graph });
  const text = graphOf(false);
  const tools = graphOf(true);
  const groups: Side[][] = [
    [
      { name: 'graph stream, text', prepare: none, turn: () => streamDirectly(text) },
      await turnsOf('minimal ACP agent, text', minimalAcpAgent(text), CHUNKS),
      await turnsOf('createLangChainAgent, text', ours(text), CHUNKS),
    ],
    [
      { name: 'graph stream, tools', prepare: none, turn: () => streamDirectly(tools) },
      await turnsOf('minimal ACP agent, tools', minimalAcpAgent(tools), 2 * TOOL_CALLS),
      await turnsOf('createLangChainAgent, tools', ours(tools), 2 * TOOL_CALLS),
    ],
  ];
  const perTurn = groups.map((sides) => sides.map((): number[] => []));
  for (let round = 0; round <= options.repeats; round += 1) {
    for (const [groupIndex, sides] of groups.entries()) {
      const medians = await measureRound(sides);
      if (round === 0) continue;
      for (const [sideIndex, value] of medians.entries()) perTurn[groupIndex]?.[sideIndex]?.push(value);
    }
  }
  options.log(`langchain benchmarks done (sink ${sink > 0 ? 'used' : 'empty'})`);
  const labels = {
    section: 'langchain',
    ours: 'createLangChainAgent turn',
    minimal: 'minimal ACP agent around the graph stream, same run',
    direct: 'graph stream drained directly',
    directFigure: 'graph-stream',
  };
  return [
    ...adapterFigures(labels, 'langchain-chunk', 'chunk', CHUNKS, perTurn[0]),
    ...adapterFigures(labels, 'langchain-tool-call', 'tool-call', TOOL_CALLS, perTurn[1]),
  ];
}
