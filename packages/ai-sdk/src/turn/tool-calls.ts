// The tool calls of one turn as the client sees them: one `tool_call` when the model makes the call (pending when it
// waits for approval, in progress otherwise), then `tool_call_update`s until it is completed or failed. Every call
// reaches a final status before the turn answers.
import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ToolSet } from 'ai';
import type { ToolCallDisplay, ToolCallInfo } from '../options.js';
import { describeSessionToolCall } from '../tools/session-tools.js';

/** A `tool-call` part of the AI SDK's full stream, as far as this package reads it. */
export interface ToolCallPart {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

interface TrackedCall {
  readonly toolName: string;
  readonly title: string;
  readonly kind: ToolKind;
  readonly input: unknown;
  status: ToolCallStatus;
}

/** The text a client shows for a tool's output or error. */
export function displayText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.message;
  if (value === undefined) return '(no output)';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function textContent(text: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text } }];
}

function isFinal(status: ToolCallStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/** Tracks the tool calls of one turn and builds their updates. */
export class ToolCalls {
  readonly #calls = new Map<string, TrackedCall>();
  readonly #tools: ToolSet;
  readonly #describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;

  constructor(tools: ToolSet, describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined) {
    this.#tools = tools;
    this.#describe = describe;
  }

  /** The `tool_call` for a call the model made. */
  started(part: ToolCallPart, status: 'pending' | 'in_progress'): SessionUpdate {
    const tool = this.#tools[part.toolName];
    const display =
      this.#describe?.({ toolName: part.toolName, input: part.input }) ??
      describeSessionToolCall(tool, part.input);
    const title =
      display?.title ?? (typeof tool?.title === 'string' ? tool.title : undefined) ?? part.toolName;
    const kind = display?.kind ?? 'other';
    this.#calls.set(part.toolCallId, { toolName: part.toolName, title, kind, input: part.input, status });
    return {
      sessionUpdate: 'tool_call',
      toolCallId: part.toolCallId,
      title,
      kind,
      status,
      rawInput: part.input,
    };
  }

  /** The tool call as `session/request_permission` names it. */
  permissionSubject(toolCallId: string): ToolCallUpdate {
    const call = this.#calls.get(toolCallId);
    return call === undefined
      ? { toolCallId }
      : { toolCallId, title: call.title, kind: call.kind, status: call.status, rawInput: call.input };
  }

  toolName(toolCallId: string): string | undefined {
    return this.#calls.get(toolCallId)?.toolName;
  }

  /** The call runs (approved); `undefined` when it is not pending. */
  running(toolCallId: string): SessionUpdate | undefined {
    return this.#move(toolCallId, 'in_progress');
  }

  /** The call's output; a preliminary output keeps it in progress. */
  output(toolCallId: string, output: unknown, preliminary: boolean): SessionUpdate | undefined {
    const update = this.#move(toolCallId, preliminary ? 'in_progress' : 'completed', true);
    return update === undefined
      ? undefined
      : { ...update, content: textContent(displayText(output)), rawOutput: output };
  }

  /** The call failed, was rejected or did not run; `text` says why. */
  failed(toolCallId: string, text: string): SessionUpdate | undefined {
    const update = this.#move(toolCallId, 'failed');
    return update === undefined ? undefined : { ...update, content: textContent(text) };
  }

  /** Calls not yet completed or failed. */
  unfinished(): string[] {
    return [...this.#calls].filter(([, call]) => !isFinal(call.status)).map(([toolCallId]) => toolCallId);
  }

  #move(
    toolCallId: string,
    status: ToolCallStatus,
    repeat = false,
  ): Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> | undefined {
    const call = this.#calls.get(toolCallId);
    // A final status is final; a repeated status is news only for outputs (preliminary results).
    if (call === undefined || isFinal(call.status) || (call.status === status && !repeat)) return undefined;
    call.status = status;
    return { sessionUpdate: 'tool_call_update', toolCallId, status };
  }
}
