import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { resultsForOpenToolCalls } from './history.js';

const messages: ModelMessage[] = [
  { role: 'user', content: 'deploy' },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'answered', toolName: 'lookup', input: {} },
      { type: 'tool-call', toolCallId: 'ran', toolName: 'deploy', input: {} },
      { type: 'tool-call', toolCallId: 'held', toolName: 'deploy', input: {} },
      { type: 'tool-call', toolCallId: 'provider', toolName: 'search', input: {}, providerExecuted: true },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'answered',
        toolName: 'lookup',
        output: { type: 'text', value: 'x' },
      },
    ],
  },
];

describe('resultsForOpenToolCalls', () => {
  it('answers each open call: with the output the stream showed, else as not run with the reason', () => {
    expect(resultsForOpenToolCalls(messages, new Map([['ran', { deployed: true }]]), 'cancelled')).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'ran',
          toolName: 'deploy',
          output: { type: 'json', value: { deployed: true } },
        },
        {
          type: 'tool-result',
          toolCallId: 'held',
          toolName: 'deploy',
          output: { type: 'execution-denied', reason: 'cancelled' },
        },
      ],
    });
  });

  it('adds nothing when every call has its result', () => {
    expect(resultsForOpenToolCalls(messages.slice(0, 1), new Map(), 'x')).toBeUndefined();
  });
});
