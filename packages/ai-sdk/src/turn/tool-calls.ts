// The tool calls of one turn as the client sees them: one `tool_call` when the model makes the call (pending when it
// waits for approval, in progress otherwise), then `tool_call_update`s until it is completed or failed. Every call
// reaches a final status before the turn answers.
import { toolOutputText, toolTextContent } from '@acpkit/elicitation';
import type {
  SessionUpdate,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ToolSet } from 'ai';
import type { ToolCallDisplay, ToolCallInfo } from '../options.js';
import {
  declaredDisplay,
  kindFromToolName,
  locationsFromInput,
  permissionTitle,
} from '../projection/tool-projection.js';
import { describeSessionToolCall, keepsOutputContent } from '../tools/session-tools.js';

/** A `tool-call` part of the AI SDK's full stream, as far as this package reads it. */
export interface ToolCallPart {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

interface TrackedCall {
  readonly toolName: string;
  readonly title: string;
  /** What a permission request calls it: the title, with a short form of the arguments unless the title is the author's. */
  readonly permissionTitle: string;
  readonly kind: ToolKind;
  readonly locations: readonly ToolCallLocation[];
  readonly input: unknown;
  /** The tool shows its own content (a diff, a terminal): its output does not replace it. */
  readonly keepsContent: boolean;
  /** `undefined` until its `tool_call` is sent. */
  status: ToolCallStatus | undefined;
}

/** A display hook that throws must not fail the turn: the call keeps its default title. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

function isFinal(status: ToolCallStatus | undefined): boolean {
  return status === 'completed' || status === 'failed';
}

/**
 * Tracks the tool calls of one turn and builds their updates, in an order the client can follow: a call's
 * `tool_call` always comes first (also when the call's first news is its result), and a tool that runs is announced
 * before it runs (the AI SDK awaits its tool-start callback), so a question it asks comes after its `tool_call`.
 */
export class ToolCalls {
  readonly #calls = new Map<string, TrackedCall>();
  /** Tool starts waiting for the stream to reach their call (see {@link ToolCalls.reached}). */
  readonly #waiting = new Map<string, () => void>();
  /** Whether a stream is being read (a tool start may wait for it). */
  #streaming = false;
  readonly #tools: ToolSet;
  readonly #describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;

  constructor(tools: ToolSet, describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined) {
    this.#tools = tools;
    this.#describe = describe;
  }

  /** The stream reached `part` (everything before it has been sent); it is announced when it runs, waits or ends. */
  seen(part: ToolCallPart): void {
    if (!this.#calls.has(part.toolCallId)) this.#track(part);
    this.#waiting.get(part.toolCallId)?.();
    this.#waiting.delete(part.toolCallId);
  }

  /**
   * Resolves once the stream has reached the call (at once for a call it has reached, such as one the user just
   * approved). Why: the AI SDK starts a tool as soon as the model's call is parsed, ahead of the parts still on their
   * way to this turn (the text the model wrote before calling it); the tool is announced after them.
   */
  reached(toolCallId: string): Promise<void> | undefined {
    if (this.#calls.has(toolCallId) || !this.#streaming) return undefined;
    return new Promise((resolve) => {
      const earlier = this.#waiting.get(toolCallId);
      this.#waiting.set(toolCallId, () => {
        earlier?.();
        resolve();
      });
    });
  }

  /** A stream of the turn is being read from now on. */
  streamStarted(): void {
    this.#streaming = true;
  }

  /** The stream ended: nothing more will be reached, so nothing waits any longer. */
  streamEnded(): void {
    this.#streaming = false;
    for (const release of this.#waiting.values()) release();
    this.#waiting.clear();
  }

  /** The call waits for the user's approval. */
  waiting(toolCallId: string): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    return call === undefined ? [] : this.#announce(toolCallId, call, 'pending');
  }

  /** The call starts running (the AI SDK is about to execute it, or the user allowed it). */
  running(part: ToolCallPart): SessionUpdate[] {
    const call = this.#calls.get(part.toolCallId) ?? this.#track(part);
    if (call.status === undefined) return this.#announce(part.toolCallId, call, 'in_progress');
    return call.status === 'pending' ? [this.#move(part.toolCallId, call, 'in_progress')] : [];
  }

  /** The call's output; a preliminary output keeps it in progress. */
  output(toolCallId: string, output: unknown, preliminary: boolean): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    if (call === undefined || isFinal(call.status)) return [];
    return [
      ...this.#announce(toolCallId, call, 'in_progress'),
      {
        ...this.#move(toolCallId, call, preliminary ? 'in_progress' : 'completed'),
        ...(call.keepsContent ? {} : { content: toolTextContent(toolOutputText(output)) }),
        rawOutput: output,
      },
    ];
  }

  /** The call failed, was rejected or did not run; `text` says why. */
  failed(toolCallId: string, text: string): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    if (call === undefined || isFinal(call.status)) return [];
    return [
      ...this.#announce(toolCallId, call, 'pending'),
      { ...this.#move(toolCallId, call, 'failed'), content: toolTextContent(text) },
    ];
  }

  /** The tool call as `session/request_permission` names it. */
  permissionSubject(toolCallId: string): ToolCallUpdate {
    const call = this.#calls.get(toolCallId);
    return call === undefined
      ? { toolCallId }
      : {
          toolCallId,
          title: call.permissionTitle,
          kind: call.kind,
          status: 'pending',
          rawInput: call.input,
          ...(call.locations.length === 0 ? {} : { locations: [...call.locations] }),
        };
  }

  /** Calls not yet completed or failed. */
  unfinished(): string[] {
    return [...this.#calls].filter(([, call]) => !isFinal(call.status)).map(([toolCallId]) => toolCallId);
  }

  #track(part: ToolCallPart): TrackedCall {
    const tool = this.#tools[part.toolName];
    // The author's hook first, then what the tool declares, then the conventions (name → kind, input → locations).
    const display =
      this.#authorsDisplay(part) ??
      describeSessionToolCall(tool, part.input) ??
      safely(() => declaredDisplay(tool, part.input));
    const title =
      display?.title ?? (typeof tool?.title === 'string' ? tool.title : undefined) ?? part.toolName;
    const call: TrackedCall = {
      toolName: part.toolName,
      title,
      permissionTitle: display?.title === undefined ? permissionTitle(title, part.input) : title,
      kind: display?.kind ?? kindFromToolName(part.toolName),
      locations: display?.locations ?? locationsFromInput(part.input),
      input: part.input,
      keepsContent: keepsOutputContent(tool),
      status: undefined,
    };
    this.#calls.set(part.toolCallId, call);
    return call;
  }

  /**
   * The author's title and kind for a call. A display hook that throws must not fail the turn (it would surface as a
   * failed model call): the call keeps its default title.
   */
  #authorsDisplay(part: ToolCallPart): ToolCallDisplay | undefined {
    try {
      return this.#describe?.({ toolName: part.toolName, input: part.input });
    } catch {
      return undefined;
    }
  }

  /** The `tool_call` of a call not announced yet (nothing once it has been). */
  #announce(toolCallId: string, call: TrackedCall, status: 'pending' | 'in_progress'): SessionUpdate[] {
    if (call.status !== undefined) return [];
    call.status = status;
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: call.title,
        kind: call.kind,
        status,
        rawInput: call.input,
        ...(call.locations.length === 0 ? {} : { locations: [...call.locations] }),
      },
    ];
  }

  #move(
    toolCallId: string,
    call: TrackedCall,
    status: ToolCallStatus,
  ): Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> {
    call.status = status;
    return { sessionUpdate: 'tool_call_update', toolCallId, status };
  }
}
