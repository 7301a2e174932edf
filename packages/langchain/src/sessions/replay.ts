// session/load shows the conversation again from the thread's messages (the checkpointer is the source of truth, not
// a transcript of what was sent): user text, the agent's text and reasoning, and each tool call with its result.
import { toolTextContent } from '@acpkit/elicitation';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { forEachTextPiece, type MessageLike, messageType } from '../turn/message-content.js';
import { displayText } from '../turn/tool-calls.js';

/** The updates that show `messages` again, in order. */
export function replayUpdates(messages: readonly MessageLike[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    const type = messageType(message);
    if (type === 'human') {
      forEachTextPiece(message, (text) =>
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } }),
      );
    } else if (type === 'ai') {
      forEachTextPiece(message, (text, thought) =>
        updates.push({
          sessionUpdate: thought ? 'agent_thought_chunk' : 'agent_message_chunk',
          content: { type: 'text', text },
        }),
      );
      for (const call of message.tool_calls ?? []) {
        if (call.id === undefined) continue;
        updates.push({
          sessionUpdate: 'tool_call',
          toolCallId: call.id,
          title: call.name,
          kind: 'other',
          status: 'pending',
          rawInput: call.args,
        });
      }
    } else if (type === 'tool' && message.tool_call_id !== undefined) {
      updates.push({
        sessionUpdate: 'tool_call_update',
        toolCallId: message.tool_call_id,
        status: message.status === 'error' ? 'failed' : 'completed',
        content: toolTextContent(displayText(message.content)),
      });
    }
  }
  return updates;
}
