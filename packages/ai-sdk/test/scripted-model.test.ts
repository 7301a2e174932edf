// The scripted-model example of docs/ai-sdk.md ("Test your agent with a scripted model"), run: the AI SDK's mock model
// asks through askUserTool in step 1 and answers with the user's choice in step 2, driven by the test client.
import { connectTestClient } from '@acpkit/testing';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { askUserTool, createAiSdkAgent } from '../src/index.js';

type Part =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const say = (text: string): Part[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
  { type: 'text-end', id: 't' },
];
const finish = (unified: 'stop' | 'tool-calls'): Part => ({
  type: 'finish',
  finishReason: { unified, raw: undefined },
  usage,
});

describe('the scripted model of docs/ai-sdk.md', () => {
  it('asks through askUserTool, then answers with what the user chose', async () => {
    const model = new MockLanguageModelV3({
      doStream: async ({ prompt }) => {
        const answered = prompt.flatMap((message) => (message.role === 'tool' ? message.content : []));
        const parts: Part[] =
          answered.length === 0
            ? [
                {
                  type: 'tool-call',
                  toolCallId: 'ask-1',
                  toolName: 'askUser',
                  input: JSON.stringify({
                    question: 'Which environment?',
                    options: ['Staging', 'Production'],
                  }),
                },
                finish('tool-calls'),
              ]
            : [...say(`You chose: ${JSON.stringify(answered[0])}`), finish('stop')];
        return {
          stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }),
        };
      },
    });

    const agent = createAiSdkAgent({
      name: 'helper',
      version: '1.0.0',
      model,
      tools: { askUser: askUserTool() },
    });
    const client = await connectTestClient(agent, { answers: [{ Choice: 'Production' }] });
    try {
      const turn = await client.prompt('Deploy');
      expect(turn.stopReason).toBe('end_turn');
      expect(turn.elicitations[0]?.request).toMatchObject({ message: 'Which environment?' });
      expect(turn.text).toMatch(/^You chose: .*Production/);
    } finally {
      await client.close();
    }
  });
});
