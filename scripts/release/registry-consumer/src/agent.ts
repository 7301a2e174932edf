// The agent a newcomer writes in a fresh project after `npm install @acpkit/elicitation @acpkit/ai-sdk` from the
// registry: an AI SDK agent (a scripted model, the AI SDK's own mock, so no API key) over stdio that asks the user
// through askUserTool, and an ACP agent of its own whose prompt asks a typed choice with @acpkit/elicitation.
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { askUserTool, createAiSdkAgent } from '@acpkit/ai-sdk';
import { acpSessions } from '@acpkit/elicitation';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

type Part =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

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
              input: JSON.stringify({ question: 'Which environment?', options: ['Staging', 'Production'] }),
            },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
          ]
        : [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: `Answer: ${JSON.stringify(answered[0])}` },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
          ];
    return {
      stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }),
    };
  },
});

const stream = ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);

/** An agent of its own on the SDK's builder: one typed choice per prompt, answered with the chosen value. */
function createChoiceAgent() {
  const sessions = acpSessions();
  return agent({ name: 'choice-agent' })
    .onRequest(
      methods.agent.initialize,
      sessions.initialize(() => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {},
        agentInfo: { name: 'choice-agent', version: '1.0.0' },
      })),
    )
    .onNotification(methods.agent.session.cancel, sessions.cancel())
    .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
    .onRequest(
      methods.agent.session.prompt,
      sessions.prompt(async (session) => {
        const result = await session.askChoice('Deploy where?', [
          { value: 'staging', label: 'Staging' },
          { value: 'production', label: 'Production', default: true },
        ] as const);
        await session.say(
          result.status === 'accepted' ? `Chosen: ${result.value}` : `Not chosen: ${result.status}`,
        );
      }),
    );
}

if (process.argv[2] === 'choice') createChoiceAgent().connect(stream);
else
  createAiSdkAgent({ name: 'newcomer', version: '1.0.0', model, tools: { askUser: askUserTool() } }).connect(
    stream,
  );
