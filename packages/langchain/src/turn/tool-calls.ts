// The tool calls of one turn as the client sees them: one `tool_call` as soon as the model's message names the call
// (pending), then `tool_call_update`s: the full arguments once the message is complete, in progress when LangGraph
// starts the tools task, completed or failed with the ToolMessage. Every call reaches a final status before the turn
// answers, and a status never goes back (the graph's steps show each call more than once: messages, updates, tasks).
import { toolOutputText, toolTextContent } from '@acpkit/elicitation';
import type { SessionUpdate, ToolCallStatus, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolCallDisplay, ToolCallInfo } from '../options.js';

interface TrackedCall {
  readonly toolName: string;
  /** The graph namespace the call was made in ('' for the root graph; a sub-agent's calls have their own). */
  readonly namespace: string;
  title: string;
  kind: ToolKind;
  input: unknown;
  status: ToolCallStatus;
}

/** A tool call's output as text for the client: LangChain content blocks of text joined, the rest as ACP shows it. */
export function displayText(value: unknown): string {
  if (Array.isArray(value) && value.every((block) => typeof block?.text === 'string')) {
    return value.map((block) => block.text as string).join('');
  }
  return toolOutputText(value);
}

function isFinal(status: ToolCallStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/** Tracks the tool calls of one turn and builds their updates. */
export class ToolCalls {
  readonly #calls = new Map<string, TrackedCall>();
  readonly #describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined;

  constructor(describe: ((call: ToolCallInfo) => ToolCallDisplay | undefined) | undefined) {
    this.#describe = describe;
  }

  /** Whether the call is known (announced). */
  has(toolCallId: string): boolean {
    return this.#calls.has(toolCallId);
  }

  /** The model started streaming a call (its arguments are still coming): announce it pending. */
  streamed(toolCallId: string, toolName: string, namespace: string): SessionUpdate[] {
    if (this.#calls.has(toolCallId)) return [];
    return [this.#announce(toolCallId, toolName, undefined, namespace)];
  }

  /** The model's message is complete: the call's full arguments (again when an edit changed them). */
  complete(toolCallId: string, toolName: string, input: unknown, namespace: string): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    if (call === undefined) return [this.#announce(toolCallId, toolName, input, namespace)];
    if (isFinal(call.status) || sameJson(call.input, input)) return [];
    call.input = input;
    const display = this.#display(call.toolName, input);
    call.title = display.title;
    call.kind = display.kind;
    return [
      { sessionUpdate: 'tool_call_update', toolCallId, title: call.title, kind: call.kind, rawInput: input },
    ];
  }

  /** LangGraph started the tools task of `namespace`: its pending calls (or just `toolCallId`) run now. */
  running(namespace: string, toolCallId?: string): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const [id, call] of this.#calls) {
      if (call.status !== 'pending' || call.namespace !== namespace) continue;
      if (toolCallId !== undefined && id !== toolCallId) continue;
      call.status = 'in_progress';
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' });
    }
    return updates;
  }

  /** The call's ToolMessage: completed, or failed when the message says `status: 'error'`. */
  result(
    toolCallId: string,
    toolName: string,
    output: unknown,
    failed: boolean,
    namespace: string,
  ): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    const updates: SessionUpdate[] = [];
    if (call === undefined) updates.push(this.#announce(toolCallId, toolName, undefined, namespace));
    else if (isFinal(call.status)) return [];
    const tracked = this.#calls.get(toolCallId) as TrackedCall;
    tracked.status = failed ? 'failed' : 'completed';
    updates.push({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: tracked.status,
      content: toolTextContent(displayText(output)),
      rawOutput: output,
    });
    return updates;
  }

  /** The call failed, was rejected or did not run; `text` says why. */
  failed(toolCallId: string, text: string): SessionUpdate[] {
    const call = this.#calls.get(toolCallId);
    if (call === undefined || isFinal(call.status)) return [];
    call.status = 'failed';
    return [
      { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: toolTextContent(text) },
    ];
  }

  /** The first call of `namespace` not final and not in `taken`, named `toolName` (to pair an approval request). */
  findOpen(toolName: string, namespace: string, taken: ReadonlySet<string>): string | undefined {
    for (const [id, call] of this.#calls) {
      if (
        call.toolName === toolName &&
        call.namespace === namespace &&
        !isFinal(call.status) &&
        !taken.has(id)
      ) {
        return id;
      }
    }
    return undefined;
  }

  /** The tool call as `session/request_permission` names it. */
  permissionSubject(toolCallId: string): ToolCallUpdate {
    const call = this.#calls.get(toolCallId);
    return call === undefined
      ? { toolCallId }
      : { toolCallId, title: call.title, kind: call.kind, status: 'pending', rawInput: call.input };
  }

  /** Calls not yet completed or failed. */
  unfinished(): string[] {
    return [...this.#calls].filter(([, call]) => !isFinal(call.status)).map(([toolCallId]) => toolCallId);
  }

  #announce(toolCallId: string, toolName: string, input: unknown, namespace: string): SessionUpdate {
    const display = this.#display(toolName, input);
    this.#calls.set(toolCallId, { toolName, namespace, ...display, input, status: 'pending' });
    return {
      sessionUpdate: 'tool_call',
      toolCallId,
      title: display.title,
      kind: display.kind,
      status: 'pending',
      ...(input === undefined ? {} : { rawInput: input }),
    };
  }

  /** The author's title and kind; a display hook that throws must not fail the turn (the call keeps its name). */
  #display(toolName: string, input: unknown): { title: string; kind: ToolKind } {
    let display: ToolCallDisplay | undefined;
    try {
      display = this.#describe?.({ toolName, input });
    } catch {
      display = undefined;
    }
    return { title: display?.title ?? toolName, kind: display?.kind ?? kindOf(toolName) };
  }
}

/** The kinds DeepAgents' and common tools' names say (the author's `describeToolCall` wins). */
function kindOf(toolName: string): ToolKind {
  switch (toolName) {
    case 'read_file':
    case 'ls':
      return 'read';
    case 'write_file':
    case 'edit_file':
      return 'edit';
    case 'glob':
    case 'grep':
      return 'search';
    case 'execute':
      return 'execute';
    case 'task':
      return 'think';
    case 'write_todos':
      return 'think';
    default:
      return 'other';
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
