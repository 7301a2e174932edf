// One prompt turn: runs the model with the tools (streamText, up to maxSteps steps) and streams what it does as
// `session/update`s through the turn's AcpSessionContext (whose signal is the turn's cancellation). A tool call held for approval ends the AI SDK's call; the turn asks the client, adds the
// AI SDK's own `tool-approval-response` parts to the messages and calls streamText again, which runs or denies the
// held calls and goes on. Every update is sent (awaited, in order) before run() settles, so the prompt response
// always comes after them.
import { type AcpSessionContext, toolOutputText } from '@acpkit/elicitation';
import type { ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import {
  type ModelMessage,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolApprovalResponse,
  type ToolSet,
} from 'ai';
import type { ResolvedAgentOptions } from '../options.js';
import type { SessionState } from '../session-state/session-state.js';
import type { TurnSetup } from '../session-state/turn-setup.js';
import { bindSessionTools } from '../tools/session-tools.js';
import { type StepUsage, usageUpdateAfterStep } from '../usage/usage-update.js';
import { type ApprovalDecision, REJECTED_REASON, requestToolApproval } from './approvals.js';
import { resultsForOpenToolCalls } from './history.js';
import { promptToUserMessage } from './prompt-content.js';
import { modelCallFailed, modelStoppedWithError } from './provider-error.js';
import { stopReasonFor } from './stop-reason.js';
import { type ToolCallPart, ToolCalls } from './tool-calls.js';

/** Where a turn records what it sends (the session's transcript, for replay on `session/load`). */
export interface UpdateRecorder {
  record(update: SessionUpdate): void;
}

/** What a turn needs from the session it runs in (its state beyond this turn). */
export interface TurnHost {
  readonly options: ResolvedAgentOptions;
  /** The conversation before this turn. */
  readonly history: readonly ModelMessage[];
  /** Tools the user allowed for the whole session; the turn adds to it. */
  readonly alwaysAllowedTools: Set<string>;
  readonly transcript: UpdateRecorder;
  /** The session's working directory. */
  readonly cwd: string;
  /** The session's mode, config values, plan and cost (tools and usage update it). */
  readonly state: SessionState;
}

type StreamPart = TextStreamPart<ToolSet>;
type ApprovalRequestPart = Extract<StreamPart, { type: 'tool-approval-request' }>;

/** What one streamText call of the turn did. */
interface CallOutcome {
  readonly approvals: ApprovalRequestPart[];
  readonly error: { readonly value: unknown } | undefined;
}

/** Why the calls still open at the end of a turn did not finish. */
const NOT_RUN = {
  cancelled: 'The user cancelled the turn before this tool call finished.',
  failed: 'The model call failed before this tool call finished.',
  stepLimit: 'The turn reached its step limit (maxSteps) before this tool call ran.',
  ended: 'The turn ended before this tool call ran.',
} as const;

function abortError(message: string): DOMException {
  // An AbortError reason makes the AI SDK end its stream with an `abort` part instead of an error.
  return new DOMException(message, 'AbortError');
}

/** One `session/prompt` turn of a session. */
export class Turn {
  readonly #host: TurnHost;
  /** The turn as `@acpkit/elicitation` sees it: updates, questions, the client, and `signal` (session/cancel). */
  readonly #session: AcpSessionContext;
  /** The session's tools with its question tools bound to this turn (so its questions end with it). */
  readonly #tools: ToolSet;
  readonly #prompt: readonly ContentBlock[];
  readonly #abort = new AbortController();
  readonly #calls: ToolCalls;
  /** Outputs of this turn's tool calls, for calls whose result message was cut off. */
  readonly #outputs = new Map<string, unknown>();
  readonly #messages: ModelMessage[] = [];
  #cancelled = false;
  #steps = 0;
  #finishReason: string | undefined;
  #rawFinishReason: string | undefined;
  #connectionLost = false;

  /** The model, system prompt, tools and settings of this turn (from the session's mode and options). */
  readonly #setup: TurnSetup;

  constructor(host: TurnHost, session: AcpSessionContext, prompt: readonly ContentBlock[], setup: TurnSetup) {
    this.#host = host;
    this.#session = session;
    this.#setup = setup;
    this.#tools = bindSessionTools(setup.tools, {
      session,
      cwd: host.cwd,
      state: host.state,
      send: (update) => this.#send(update),
    });
    this.#prompt = prompt;
    // The tools as given (session tools carry how their calls are shown), not the bound copies.
    this.#calls = new ToolCalls(setup.tools, host.options.describeToolCall);
  }

  /** The messages this turn adds to the history (complete once run() has settled). */
  get messages(): readonly ModelMessage[] {
    return this.#messages;
  }

  /** Ends the turn as cancelled from within (the client answered a permission request `cancelled`). */
  #cancel(): void {
    this.#cancelled = true;
    this.#abort.abort(abortError('The client cancelled the turn (a permission request answered cancelled).'));
  }

  /**
   * Runs the turn and resolves its stop reason.
   *
   * A cancelled turn (`session/cancel`, the prompt's own `$/cancel_request`: the session's `signal`) resolves
   * `cancelled`.
   *
   * @throws `RequestError` -32602 for prompt content the agent did not advertise (nothing ran); -32603 when the
   * model call failed (the provider's message); `ElicitationConnectionClosedError` when the connection closed.
   */
  async run(): Promise<StopReason> {
    const userMessage = promptToUserMessage(this.#prompt, this.#host.options.modelInputs);
    for (const content of this.#prompt) {
      // The client shows its own prompt; the transcript keeps it for replay on session/load.
      this.#host.transcript.record({ sessionUpdate: 'user_message_chunk', content });
    }
    this.#messages.push(userMessage);
    const { signal } = this.#session;
    const onCancel = (): void => {
      this.#cancelled = true;
      this.#abort.abort(abortError('The turn was cancelled.'));
    };
    signal.addEventListener('abort', onCancel, { once: true });
    if (signal.aborted) onCancel();
    let error: { readonly value: unknown } | undefined;
    let stepLimitReached = false;
    try {
      for (;;) {
        const outcome = await this.#streamOnce();
        error = outcome.error;
        if (error !== undefined || this.#abort.signal.aborted || outcome.approvals.length === 0) break;
        if (this.#steps >= this.#host.options.maxSteps) {
          stepLimitReached = true;
          break;
        }
        const responses = await this.#decide(outcome.approvals);
        if (responses === undefined) break;
        this.#messages.push({ role: 'tool', content: responses });
      }
    } finally {
      signal.removeEventListener('abort', onCancel);
      await this.#closeOpenCalls(
        this.#cancelled || this.#abort.signal.aborted
          ? NOT_RUN.cancelled
          : error !== undefined
            ? NOT_RUN.failed
            : stepLimitReached
              ? NOT_RUN.stepLimit
              : NOT_RUN.ended,
      );
    }
    if (this.#cancelled) return 'cancelled';
    if (error !== undefined) throw modelCallFailed(error.value);
    if (this.#finishReason === 'error') throw modelStoppedWithError(this.#rawFinishReason);
    return stopReasonFor(this.#finishReason, stepLimitReached || this.#steps >= this.#host.options.maxSteps);
  }

  /** One streamText call over the history and this turn's messages so far, streamed to the client. */
  async #streamOnce(): Promise<CallOutcome> {
    const { options } = this.#host;
    const setup = this.#setup;
    const tools = this.#tools;
    const approvals: ApprovalRequestPart[] = [];
    let error: { value: unknown } | undefined;
    let stepMessages: readonly ModelMessage[] = [];
    // Each finished step reports every response message of this call so far (the last one wins); a call cut off
    // mid-step keeps the steps that finished.
    const onStepFinish = (step: {
      readonly response: { readonly messages: readonly ModelMessage[] };
    }): void => {
      stepMessages = step.response.messages;
    };
    // Awaited by the AI SDK before it runs a tool: the call's `tool_call` goes on the wire after what the model
    // streamed before the call, and before anything the tool does (a question, a permission request).
    const onToolStart = async (event: { readonly toolCall: ToolCallPart }): Promise<void> => {
      await this.#calls.reached(event.toolCall.toolCallId);
      await this.#sendAll(this.#calls.running(event.toolCall));
    };
    this.#calls.streamStarted();
    try {
      const result = streamText({
        ...setup.callSettings,
        model: setup.model,
        // `system` works in ai 6 and 7 (7 reads it as `instructions`), so one call fits both majors.
        system: setup.system,
        tools,
        messages: [...this.#host.history, ...this.#messages],
        stopWhen: stepCountIs(options.maxSteps - this.#steps),
        abortSignal: this.#abort.signal,
        // Errors arrive as `error` parts; without a handler the AI SDK would also print them to stderr.
        onError: () => undefined,
        onStepFinish,
        // ai 6 and 7 both read these names (7 also has onStepEnd / onToolExecutionStart for them).
        experimental_onToolCallStart: onToolStart,
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-delta':
            await this.#chunk('agent_message_chunk', part.text);
            break;
          case 'reasoning-delta':
            await this.#chunk('agent_thought_chunk', part.text);
            break;
          case 'tool-call':
            this.#calls.seen(part);
            break;
          case 'tool-approval-request':
            // ai 7 may decide an approval itself (`isAutomatic`); only the user's decisions are asked for.
            if ((part as { isAutomatic?: boolean }).isAutomatic !== true) {
              approvals.push(part);
              await this.#sendAll(this.#calls.waiting(part.toolCall.toolCallId));
            }
            break;
          case 'tool-result': {
            const preliminary = (part as { preliminary?: boolean }).preliminary === true;
            if (!preliminary) this.#outputs.set(part.toolCallId, part.output);
            await this.#sendAll(this.#calls.output(part.toolCallId, part.output, preliminary));
            break;
          }
          case 'tool-error':
            await this.#sendAll(this.#calls.failed(part.toolCallId, `Failed: ${toolOutputText(part.error)}`));
            break;
          case 'tool-output-denied':
            await this.#sendAll(this.#calls.failed(part.toolCallId, REJECTED_REASON));
            break;
          case 'finish-step': {
            this.#steps += 1;
            this.#finishReason = part.finishReason;
            this.#rawFinishReason = part.rawFinishReason;
            const usage = usageUpdateAfterStep(
              setup.usage,
              part.usage as StepUsage | undefined,
              this.#host.state,
            );
            if (usage !== undefined) await this.#send(usage);
            break;
          }
          case 'error':
            error ??= { value: part.error };
            break;
          default:
            break;
        }
      }
    } catch (thrown) {
      // Aborting ends the stream with an `abort` part; anything thrown otherwise is a failed call, unless the
      // connection is gone (then there is nobody to tell).
      if (this.#connectionLost) throw thrown;
      if (!this.#abort.signal.aborted) error ??= { value: thrown };
    } finally {
      this.#calls.streamEnded();
      this.#messages.push(...stepMessages);
    }
    return { approvals, error };
  }

  /**
   * Asks the client about each held call (or approves it: allowed always), in order. `undefined` when the turn was
   * cancelled meanwhile: nothing more runs.
   */
  async #decide(approvals: readonly ApprovalRequestPart[]): Promise<ToolApprovalResponse[] | undefined> {
    const responses: ToolApprovalResponse[] = [];
    for (const approval of approvals) {
      const { toolCallId, toolName } = approval.toolCall;
      const decision: ApprovalDecision = this.#host.alwaysAllowedTools.has(toolName)
        ? { approved: true, always: false }
        : await requestToolApproval(
            this.#session.client,
            this.#session.sessionId,
            toolName,
            this.#calls.permissionSubject(toolCallId),
            this.#abort.signal,
          );
      if (!decision.approved && decision.cancelled) {
        // The client answered `cancelled` (it cancels the turn) or session/cancel came while it asked.
        if (!this.#abort.signal.aborted) this.#cancel();
        return undefined;
      }
      if (decision.approved) {
        if (decision.always) this.#host.alwaysAllowedTools.add(toolName);
        await this.#sendAll(this.#calls.running(approval.toolCall));
        responses.push({ type: 'tool-approval-response', approvalId: approval.approvalId, approved: true });
      } else {
        await this.#sendAll(this.#calls.failed(toolCallId, decision.reason));
        responses.push({
          type: 'tool-approval-response',
          approvalId: approval.approvalId,
          approved: false,
          reason: decision.reason,
        });
      }
    }
    return responses;
  }

  /** Gives every call still open a final status (client) and a result (history): `reason` says why it did not run. */
  async #closeOpenCalls(reason: string): Promise<void> {
    const closing = resultsForOpenToolCalls(this.#messages, this.#outputs, reason);
    if (closing !== undefined) this.#messages.push(closing);
    for (const toolCallId of this.#calls.unfinished()) {
      if (this.#connectionLost) return;
      const updates = this.#outputs.has(toolCallId)
        ? this.#calls.output(toolCallId, this.#outputs.get(toolCallId), false)
        : this.#calls.failed(toolCallId, reason);
      try {
        await this.#sendAll(updates);
      } catch {
        // The connection closed: run() reports that through the request signal.
        return;
      }
    }
  }

  /** One streamed delta as one chunk update (an empty delta is not news). */
  async #chunk(kind: 'agent_message_chunk' | 'agent_thought_chunk', text: string): Promise<void> {
    if (text !== '') await this.#send({ sessionUpdate: kind, content: { type: 'text', text } });
  }

  async #sendAll(updates: readonly SessionUpdate[]): Promise<void> {
    for (const update of updates) await this.#send(update);
  }

  async #send(update: SessionUpdate): Promise<void> {
    this.#host.transcript.record(update);
    try {
      await this.#session.update(update);
    } catch (error) {
      // Only a closed connection rejects a notification: stop the model, nothing can be shown any more.
      this.#connectionLost = true;
      this.#abort.abort(abortError('The ACP connection closed.'));
      throw error;
    }
  }
}
