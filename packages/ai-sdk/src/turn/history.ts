// A turn's messages must leave the history well formed: every tool call the model made needs a result before the
// next user message (the AI SDK refuses the prompt otherwise, MissingToolResultsError). A turn cut short
// (cancelled, failed, step limit, waiting for approval) gets a result for each call left without one.
import type { ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';

interface OpenCall {
  readonly toolName: string;
}

function openToolCalls(messages: readonly ModelMessage[]): Map<string, OpenCall> {
  const open = new Map<string, OpenCall>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call' && part.providerExecuted !== true) {
          open.set(part.toolCallId, { toolName: part.toolName });
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type === 'tool-result') open.delete(part.toolCallId);
      }
    }
  }
  return open;
}

/**
 * The tool message that answers every call of `messages` still without a result: the output it produced when the
 * stream showed one (`outputs`), else "did not run" with `reason` (an `execution-denied` result, the AI SDK's own
 * shape for a call that was not run). `undefined` when nothing is open.
 */
export function resultsForOpenToolCalls(
  messages: readonly ModelMessage[],
  outputs: ReadonlyMap<string, unknown>,
  reason: string,
): ToolModelMessage | undefined {
  const open = openToolCalls(messages);
  if (open.size === 0) return undefined;
  const content: ToolResultPart[] = [];
  for (const [toolCallId, { toolName }] of open) {
    content.push(
      outputs.has(toolCallId)
        ? {
            type: 'tool-result',
            toolCallId,
            toolName,
            output: { type: 'json', value: toJson(outputs.get(toolCallId)) },
          }
        : { type: 'tool-result', toolCallId, toolName, output: { type: 'execution-denied', reason } },
    );
  }
  return { role: 'tool', content };
}

type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/** A tool output as JSON (what the AI SDK sends the model for an output without `toModelOutput`). */
function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return String(value);
  }
}
