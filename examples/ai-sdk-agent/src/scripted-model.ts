// The example's offline model: the AI SDK's own mock (MockLanguageModelV3 from `ai/test`) playing a short release
// conversation, so `node examples/ai-sdk-agent` works without an API key. Step 1 thinks and asks which environment
// (askUser); step 2 deploys there (the deploy tool needs approval); step 3 says how it went. Text streams word by word.
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { SERVICE, VERSION } from './release.js';

/** A provider stream part (the AI SDK's LanguageModelV3StreamPart, reached through the mock's types). */
type Part =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type Prompt = Parameters<MockLanguageModelV3['doStream']>[0]['prompt'];

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** Text as deltas of one word each (with its following space), as a streaming model sends it. */
function words(kind: 'text' | 'reasoning', id: string, text: string): Part[] {
  const deltas = text.match(/\S+\s*/g) ?? [];
  return [
    { type: `${kind}-start`, id },
    ...deltas.map((delta): Part => ({ type: `${kind}-delta`, id, delta })),
    { type: `${kind}-end`, id },
  ] as Part[];
}

function finish(unified: 'stop' | 'tool-calls'): Part {
  return { type: 'finish', finishReason: { unified, raw: undefined }, usage };
}

/** The output of the last tool result named `toolName` in this turn, if any. */
function resultOf(prompt: Prompt, toolName: string): { type: string; value?: unknown } | undefined {
  for (const message of [...prompt].reverse()) {
    if (message.role === 'user') return undefined;
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolName === toolName)
        return part.output as { type: string; value?: unknown };
    }
  }
  return undefined;
}

/** What the scripted model says next, from where the turn stands. */
function nextParts(prompt: Prompt): Part[] {
  const deployed = resultOf(prompt, 'deploy');
  if (deployed !== undefined) {
    const outcome =
      deployed.type === 'execution-denied'
        ? 'The deployment was not approved, so nothing changed.'
        : `Done: ${SERVICE} ${VERSION} is live. ${JSON.stringify(deployed.value)}`;
    return [...words('text', 'done', outcome), finish('stop')];
  }
  const asked = resultOf(prompt, 'askUser');
  if (asked !== undefined) {
    const answer = asked.value as { status?: string; answer?: string } | undefined;
    if (answer?.status !== 'accepted' || answer.answer === undefined) {
      return [
        ...words('text', 'stop', 'Without an environment I will not deploy. Tell me when you are ready.'),
        finish('stop'),
      ];
    }
    const environment = answer.answer.toLowerCase();
    return [
      ...words('text', 'deploy', `Deploying ${SERVICE} ${VERSION} to ${environment}. `),
      {
        type: 'tool-call',
        toolCallId: 'deploy-1',
        toolName: 'deploy',
        input: JSON.stringify({ environment }),
      },
      finish('tool-calls'),
    ];
  }
  return [
    ...words(
      'reasoning',
      'think',
      `The user wants ${SERVICE} ${VERSION} released. I need the target environment first.`,
    ),
    ...words('text', 'ask', 'Let me ask where to deploy. '),
    {
      type: 'tool-call',
      toolCallId: 'ask-1',
      toolName: 'askUser',
      input: JSON.stringify({
        question: `Which environment should ${SERVICE} ${VERSION} go to?`,
        options: ['Staging', 'Production'],
      }),
    },
    finish('tool-calls'),
  ];
}

/**
 * The scripted release model. `chunkDelayMs` paces the stream like a real model (0 for tests).
 *
 * @example
 * ```ts
 * import { createScriptedReleaseModel } from '@acpkit/example-ai-sdk-agent';
 *
 * const model = createScriptedReleaseModel({ chunkDelayMs: 0 });
 * ```
 */
export function createScriptedReleaseModel(options: { chunkDelayMs?: number } = {}): MockLanguageModelV3 {
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  return new MockLanguageModelV3({
    provider: 'acpkit-example',
    modelId: 'scripted-release-helper',
    doStream: async ({ prompt }) => ({
      stream: simulateReadableStream({
        chunks: nextParts(prompt),
        initialDelayInMs: null,
        chunkDelayInMs: chunkDelayMs > 0 ? chunkDelayMs : null,
      }),
    }),
  });
}
