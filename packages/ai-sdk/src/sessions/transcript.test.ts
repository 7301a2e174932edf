import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { Transcript } from './transcript.js';

const chunk = (
  sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk',
  text: string,
): SessionUpdate => ({
  sessionUpdate,
  content: { type: 'text', text },
});

describe('Transcript', () => {
  it('joins consecutive text chunks of one kind and keeps everything else as sent', () => {
    const transcript = new Transcript();
    const toolCall: SessionUpdate = { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'lookup' };
    for (const update of [
      chunk('agent_thought_chunk', 'Think'),
      chunk('agent_thought_chunk', 'ing'),
      chunk('agent_message_chunk', 'Hel'),
      chunk('agent_message_chunk', 'lo'),
      toolCall,
      chunk('agent_message_chunk', 'Done'),
    ]) {
      transcript.record(update);
    }
    expect(transcript.snapshot()).toEqual([
      chunk('agent_thought_chunk', 'Thinking'),
      chunk('agent_message_chunk', 'Hello'),
      toolCall,
      chunk('agent_message_chunk', 'Done'),
    ]);
  });

  it('keeps joining after a snapshot taken in the middle of a message, and never changes an update it was given', () => {
    const first = chunk('agent_message_chunk', 'a');
    const transcript = new Transcript([chunk('agent_message_chunk', 'earlier')]);
    transcript.record(chunk('agent_thought_chunk', 'x'));
    transcript.record(first);
    transcript.record(chunk('agent_message_chunk', 'b'));
    expect(transcript.snapshot().at(-1)).toEqual(chunk('agent_message_chunk', 'ab'));
    transcript.record(chunk('agent_message_chunk', 'c'));
    expect(transcript.snapshot()).toEqual([
      chunk('agent_message_chunk', 'earlier'),
      chunk('agent_thought_chunk', 'x'),
      chunk('agent_message_chunk', 'abc'),
    ]);
    expect(first).toEqual(chunk('agent_message_chunk', 'a'));
  });
});
