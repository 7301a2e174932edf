import { describe, expect, it } from 'vitest';
import { Transcript } from './transcript.js';

describe('Transcript', () => {
  it('streams chunks and starts compact lines on a fresh line', () => {
    const transcript = new Transcript();
    const output = [
      transcript.render({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } }),
      transcript.render({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ', world' } }),
      transcript.render({
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Read file',
        kind: 'read',
        status: 'in_progress',
      }),
      transcript.render({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' }),
      transcript.render({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }),
      transcript.render({
        sessionUpdate: 'plan',
        entries: [
          { content: 'One', priority: 'high', status: 'completed' },
          { content: 'Two', priority: 'low', status: 'in_progress' },
          { content: 'Three', priority: 'low', status: 'pending' },
        ],
      }),
      transcript.render({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done' } }),
      transcript.endTurn('end_turn'),
    ].join('');
    expect(output).toBe(
      [
        'Hello, world',
        '⚙ Read file (read) … in_progress',
        '✓ Read file completed',
        'Plan:',
        '  [x] One',
        '  [~] Two',
        '  [ ] Three',
        'Done',
        '',
      ].join('\n'),
    );
  });

  it('names unusual stop reasons and non-text content, and ignores updates it does not show', () => {
    const transcript = new Transcript();
    expect(
      transcript.render({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'resource_link', uri: 'file:///a.txt', name: 'a' },
      }),
    ).toBe('[link: file:///a.txt]');
    expect(
      transcript.render({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }),
    ).toBe('');
    expect(
      transcript.render({ sessionUpdate: 'tool_call_update', toolCallId: 'unknown', status: 'failed' }),
    ).toBe('\n✗ unknown failed\n');
    expect(transcript.endTurn('cancelled')).toBe('(turn ended: cancelled)\n');
    expect(transcript.endTurn('end_turn')).toBe('');
  });
});
