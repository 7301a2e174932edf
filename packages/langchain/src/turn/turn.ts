// One prompt turn: streams the graph (`streamMode: ['messages', 'updates', 'tasks']`, `subgraphs: true`, the turn's
// signal) and sends what it does as `session/update`s, in the order the graph emits it; when the graph pauses on
// interrupts it asks the client (interrupts.ts) and resumes with a Command, until the graph ends, fails or the turn
// is cancelled. Every update is sent (awaited, in order) before run() settles, so the prompt response comes after
// them, and every tool call the client was shown ends completed or failed.
import { setMaxListeners } from 'node:events';
import type { AcpSessionContext } from '@acpkit/elicitation';
import type { ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import type { CompiledGraphLike } from '../graph.js';
import type { ResolvedAgentOptions } from '../options.js';
import { InterruptAnswers, type PendingInterrupt } from './interrupts.js';
import { finishReasonOf, forEachTextPiece, type MessageLike, messageType } from './message-content.js';
import { planFromTodos } from './plan.js';
import { promptToHumanContent } from './prompt-content.js';
import { graphFailed, isRecursionLimit } from './run-errors.js';
import { stopReasonFor } from './stop-reason.js';
import { ToolCalls } from './tool-calls.js';

/** What a turn needs from the session it runs in. */
export interface TurnHost {
  readonly options: ResolvedAgentOptions;
  readonly graph: CompiledGraphLike;
  readonly sessionId: string;
  /** LangGraph's run config for this session (thread_id, context). */
  readonly runConfig: Record<string, unknown>;
  /** Tools the user allowed for the whole session; the turn adds to it. */
  readonly alwaysAllowedTools: Set<string>;
  /** The schemas of the graph's tools by name (for "edit the arguments" forms). */
  readonly toolSchemas: ReadonlyMap<string, unknown>;
}

/** Why the calls still open at the end of a turn did not finish. */
const NOT_RUN = {
  cancelled: 'The user cancelled the turn before this tool call finished.',
  failed: 'The graph failed before this tool call finished.',
  ended: 'The turn ended before this tool call ran.',
} as const;

/** A namespace as one string ('' for the root graph). */
function namespaceKey(namespace: unknown): string {
  return Array.isArray(namespace) && namespace.length > 0 ? namespace.join('|') : '';
}

/** Inside a tool (a sub-agent run by DeepAgents' `task` tool): its text is the sub-agent's thinking, not the answer. */
function insideTool(namespace: string): boolean {
  return namespace.startsWith('tools:') || namespace.includes('|tools:');
}

/** One `session/prompt` turn of a session. */
export class Turn {
  readonly #host: TurnHost;
  readonly #session: AcpSessionContext;
  readonly #prompt: readonly ContentBlock[];
  readonly #calls: ToolCalls;
  readonly #abort = new AbortController();
  /** The tool-call ids of each streamed message, by chunk index (ids come only on a call's first chunk). */
  readonly #chunkIds = new Map<string, string>();
  readonly #interrupts = new Map<string, PendingInterrupt>();
  #finishReason: string | undefined;
  #connectionLost = false;

  readonly #stop: AbortSignal | undefined;

  /** `stop` ends the turn as cancelled too (the session was closed). */
  constructor(
    host: TurnHost,
    session: AcpSessionContext,
    prompt: readonly ContentBlock[],
    stop?: AbortSignal,
  ) {
    this.#host = host;
    this.#stop = stop;
    this.#session = session;
    this.#prompt = prompt;
    this.#calls = new ToolCalls(host.options.describeToolCall);
    // LangGraph adds one abort listener per task to the run's signal (a step with 50 tool calls adds 50): a bound
    // by the graph's own width, not a leak, so Node's warning at 11 would only be noise on stderr.
    setMaxListeners(0, this.#abort.signal);
  }

  /**
   * Runs the turn and resolves its stop reason (`cancelled` for a cancelled turn).
   *
   * @throws `RequestError` -32602 for prompt content the agent did not advertise (nothing ran); -32603 when the
   * graph failed (its message) or paused on an interrupt this agent cannot ask about.
   */
  async run(): Promise<StopReason> {
    const content = promptToHumanContent(this.#prompt, this.#host.options.modelInputs);
    const { signal } = this.#session;
    const onCancel = (): void => this.#abort.abort(signal.reason);
    const onStop = (): void => this.#abort.abort(new DOMException('The session was closed.', 'AbortError'));
    signal.addEventListener('abort', onCancel, { once: true });
    this.#stop?.addEventListener('abort', onStop, { once: true });
    if (signal.aborted) onCancel();
    if (this.#stop?.aborted) onStop();
    let failure: unknown;
    let recursionLimit = false;
    try {
      let input: unknown = { messages: [...(await this.#closingMessages()), new HumanMessage({ content })] };
      const answers = new InterruptAnswers(
        this.#session,
        this.#calls,
        this.#host.alwaysAllowedTools,
        this.#host.toolSchemas,
        this.#abort.signal,
      );
      for (;;) {
        this.#interrupts.clear();
        await this.#streamOnce(input);
        if (this.#abort.signal.aborted || this.#interrupts.size === 0) break;
        const resume = await answers.answer([...this.#interrupts.values()]);
        if (resume === undefined || this.#abort.signal.aborted) {
          // The client answered a permission request `cancelled`: it cancels the turn (the graph stays paused).
          this.#abort.abort(new DOMException('The client cancelled a permission request.', 'AbortError'));
          break;
        }
        input = new Command({ resume });
      }
    } catch (error) {
      if (this.#connectionLost) throw error;
      if (!this.#abort.signal.aborted) {
        if (isRecursionLimit(error)) recursionLimit = true;
        else failure = error;
      }
    } finally {
      signal.removeEventListener('abort', onCancel);
      this.#stop?.removeEventListener('abort', onStop);
      await this.#closeOpenCalls(
        this.#abort.signal.aborted
          ? NOT_RUN.cancelled
          : failure !== undefined
            ? NOT_RUN.failed
            : NOT_RUN.ended,
      );
    }
    if (this.#abort.signal.aborted) return 'cancelled';
    if (failure !== undefined) throw graphFailed(failure);
    if (recursionLimit) return 'max_turn_requests';
    return stopReasonFor(this.#finishReason);
  }

  /**
   * ToolMessages for the calls an earlier turn left without a result (it was cancelled while a call ran or waited
   * for approval): a model API refuses a history with unanswered calls, so the new input answers them first.
   */
  async #closingMessages(): Promise<ToolMessage[]> {
    const state = await this.#host.graph.getState({
      configurable: this.#host.runConfig.configurable as Record<string, unknown>,
    });
    const messages = (state.values as { messages?: MessageLike[] } | undefined)?.messages;
    if (!Array.isArray(messages)) return [];
    const answered = new Set<string>();
    const closing: ToolMessage[] = [];
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index] as MessageLike;
      const type = messageType(message);
      if (type === 'tool' && message.tool_call_id !== undefined) answered.add(message.tool_call_id);
      if (type === 'ai') {
        for (const call of message.tool_calls ?? []) {
          if (call.id !== undefined && !answered.has(call.id)) {
            closing.push(
              new ToolMessage({
                content: NOT_RUN.cancelled,
                tool_call_id: call.id,
                name: call.name,
                status: 'error',
              }),
            );
          }
        }
        break;
      }
      if (type === 'human') break;
    }
    return closing;
  }

  async #streamOnce(input: unknown): Promise<void> {
    const { options, runConfig } = this.#host;
    const stream = await this.#host.graph.stream(input, {
      ...runConfig,
      streamMode: ['messages', 'updates', 'tasks'],
      subgraphs: true,
      signal: this.#abort.signal,
      ...(options.recursionLimit === undefined ? {} : { recursionLimit: options.recursionLimit }),
    });
    for await (const item of stream) {
      const [namespace, mode, payload] = item as [unknown, string, unknown];
      const key = namespaceKey(namespace);
      switch (mode) {
        case 'messages':
          await this.#message((payload as [MessageLike])[0], key);
          break;
        case 'updates':
          await this.#updates(payload, key);
          break;
        case 'tasks':
          await this.#task(payload as { name?: string; input?: unknown; result?: unknown }, key);
          break;
        default:
          break;
      }
    }
  }

  /** A message (chunk) the graph streamed: text, reasoning, the calls it starts; or a ToolMessage's result. */
  async #message(message: MessageLike, namespace: string): Promise<void> {
    const type = messageType(message);
    if (type === 'tool') {
      await this.#toolResult(message, namespace);
      return;
    }
    if (type !== 'ai' && type !== 'AIMessageChunk') return;
    const thoughtOnly = namespace !== '' && insideTool(namespace);
    const { content } = message;
    if (typeof content === 'string' && message.additional_kwargs?.reasoning_content === undefined) {
      // The common token: plain text, sent without building anything else.
      if (content !== '') {
        await this.#send({
          sessionUpdate: thoughtOnly ? 'agent_thought_chunk' : 'agent_message_chunk',
          content: { type: 'text', text: content },
        });
      }
    } else {
      const pieces: Array<[string, boolean]> = [];
      forEachTextPiece(message, (text, thought) => pieces.push([text, thought || thoughtOnly]));
      for (const [text, thought] of pieces) {
        await this.#send({
          sessionUpdate: thought ? 'agent_thought_chunk' : 'agent_message_chunk',
          content: { type: 'text', text },
        });
      }
    }
    const chunks = message.tool_call_chunks;
    if (chunks !== undefined && chunks.length > 0) await this.#streamedCalls(message, chunks, namespace);
    if (chunks === undefined && message.tool_calls !== undefined) {
      // Complete calls (a message that was not streamed chunk by chunk); chunks' partial calls wait for the update.
      for (const call of message.tool_calls) {
        if (call.id !== undefined)
          await this.#sendAll(this.#calls.complete(call.id, call.name, call.args, namespace));
      }
    }
    if (namespace === '' && message.response_metadata !== undefined) {
      this.#finishReason = finishReasonOf(message) ?? this.#finishReason;
    }
  }

  /** The calls a streamed chunk starts (a call's id and name come on its first chunk only). */
  async #streamedCalls(
    message: MessageLike,
    chunks: NonNullable<MessageLike['tool_call_chunks']>,
    namespace: string,
  ): Promise<void> {
    for (const chunk of chunks) {
      const slot = `${message.id ?? ''}#${chunk.index ?? 0}`;
      const toolCallId = chunk.id ?? this.#chunkIds.get(slot);
      if (toolCallId === undefined) continue;
      this.#chunkIds.set(slot, toolCallId);
      if (chunk.name) await this.#sendAll(this.#calls.streamed(toolCallId, chunk.name, namespace));
    }
  }

  /** A node's state update: complete model messages, ToolMessages, DeepAgents' todos, and the graph's interrupts. */
  async #updates(payload: unknown, namespace: string): Promise<void> {
    if (typeof payload !== 'object' || payload === null) return;
    for (const [node, update] of Object.entries(payload)) {
      if (node === '__interrupt__') {
        for (const interrupt of (Array.isArray(update) ? update : []) as Array<{
          id?: string;
          value?: unknown;
        }>) {
          const id = interrupt.id ?? `${namespace}#${this.#interrupts.size}`;
          this.#interrupts.set(id, { id: interrupt.id, value: interrupt.value, namespace });
        }
        continue;
      }
      for (const values of Array.isArray(update) ? update : [update]) {
        if (typeof values !== 'object' || values === null) continue;
        const { messages, todos } = values as { messages?: unknown; todos?: unknown };
        for (const message of Array.isArray(messages) ? messages : messages === undefined ? [] : [messages]) {
          const type = messageType(message as MessageLike);
          if (type === 'ai') {
            for (const call of (message as MessageLike).tool_calls ?? []) {
              if (call.id !== undefined)
                await this.#sendAll(this.#calls.complete(call.id, call.name, call.args, namespace));
            }
          } else if (type === 'tool') {
            await this.#toolResult(message as MessageLike, namespace);
          }
        }
        if (namespace === '' && Array.isArray(todos)) {
          const plan = planFromTodos(todos);
          if (plan !== undefined) await this.#send(plan);
        }
      }
    }
  }

  /** A task started: a tools task runs the pending calls of its namespace (one call for a `Send` per call). */
  async #task(task: { name?: string; input?: unknown; result?: unknown }, namespace: string): Promise<void> {
    if (!('input' in task)) return;
    const single = (task.input as { lg_tool_call?: { id?: string } } | undefined)?.lg_tool_call?.id;
    if (single !== undefined) await this.#sendAll(this.#calls.running(namespace, single));
    else if (task.name === 'tools') await this.#sendAll(this.#calls.running(namespace));
  }

  async #toolResult(message: MessageLike, namespace: string): Promise<void> {
    if (message.tool_call_id === undefined) return;
    const output =
      message.artifact !== undefined && message.content === '' ? message.artifact : message.content;
    await this.#sendAll(
      this.#calls.result(
        message.tool_call_id,
        message.name ?? 'tool',
        output,
        message.status === 'error',
        namespace,
      ),
    );
  }

  async #closeOpenCalls(reason: string): Promise<void> {
    for (const toolCallId of this.#calls.unfinished()) {
      if (this.#connectionLost) return;
      try {
        await this.#sendAll(this.#calls.failed(toolCallId, reason));
      } catch {
        return;
      }
    }
  }

  async #sendAll(updates: readonly SessionUpdate[]): Promise<void> {
    for (const update of updates) await this.#send(update);
  }

  /** Sends one update (the hot path: one per streamed token, so no async frame of its own). */
  #send(update: SessionUpdate): Promise<void> {
    return this.#session.update(update).catch((error: unknown) => {
      // Only a closed connection rejects a notification: stop the graph, nothing can be shown any more.
      this.#connectionLost = true;
      this.#abort.abort(new DOMException('The ACP connection closed.', 'AbortError'));
      throw error;
    });
  }
}
