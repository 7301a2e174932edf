// The coding agent's offline model: the AI SDK's mock (MockLanguageModelV3) playing one small coding task, so the
// example runs without an API key. For "fix the greeting in hello.txt" it publishes a plan, reads the file through
// the editor, fixes the typo with an edit (a diff on the tool call), shows the result in a terminal, completes the
// plan and says so. In a mode without the edit tool it says it cannot edit there.
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

type Part =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type Call = Parameters<MockLanguageModelV3['doStream']>[0];

/** The file the scripted task fixes, relative to the session's working directory. */
export const GREETING_FILE = 'hello.txt';

const usage = {
  inputTokens: { total: 1_200, noCache: 1_200, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 80, text: 80, reasoning: 0 },
};

function say(id: string, text: string): Part[] {
  const deltas = text.match(/\S+\s*/g) ?? [];
  return [
    { type: 'text-start', id },
    ...deltas.map((delta): Part => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
  ] as Part[];
}

function call(toolCallId: string, toolName: string, input: unknown): Part[] {
  return [
    { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) } as Part,
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage } as Part,
  ];
}

function stop(id: string, text: string): Part[] {
  return [
    ...say(id, text),
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage } as Part,
  ];
}

/** Tool results since the last user message, by tool call id. */
function resultsOf(prompt: Call['prompt']): Map<string, { type: string; value?: unknown }> {
  const results = new Map<string, { type: string; value?: unknown }>();
  for (const message of prompt) {
    if (message.role === 'user') results.clear();
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result')
        results.set(part.toolCallId, part.output as { type: string; value?: unknown });
    }
  }
  return results;
}

function plan(statuses: readonly ('pending' | 'in_progress' | 'completed')[]) {
  const steps = ['Read hello.txt', 'Fix the typo', 'Check the file in a terminal'];
  return { entries: steps.map((content, index) => ({ content, priority: 'high', status: statuses[index] })) };
}

function nextParts({ prompt, tools }: Call): Part[] {
  const offered = new Set((tools ?? []).map((tool) => tool.name));
  const done = resultsOf(prompt);
  if (!offered.has('editFile')) {
    return stop(
      'ask',
      'In this mode I can only read and plan. Switch to the code mode (/mode code) and I will fix it.',
    );
  }
  if (!done.has('plan-1')) {
    return [
      ...say('start', 'I will fix the greeting. '),
      ...call('plan-1', 'plan', plan(['in_progress', 'pending', 'pending'])),
    ];
  }
  if (!done.has('read-1')) return call('read-1', 'readFile', { path: GREETING_FILE });
  if (!done.has('edit-1'))
    return call('edit-1', 'editFile', { path: GREETING_FILE, oldText: 'Helo', newText: 'Hello' });
  if (!done.has('check-1')) return call('check-1', 'terminal', { command: 'cat', args: [GREETING_FILE] });
  if (!done.has('plan-2')) return call('plan-2', 'plan', plan(['completed', 'completed', 'completed']));
  const checked = done.get('check-1')?.value as { output?: string } | undefined;
  return stop('done', `Fixed: ${GREETING_FILE} now reads "${(checked?.output ?? '').trim()}".`);
}

/**
 * The scripted coding model. `chunkDelayMs` paces the stream like a real model (0 for tests).
 *
 * @example
 * ```ts
 * import { createScriptedCodingModel } from '@acpkit/example-ai-sdk-agent';
 *
 * const model = createScriptedCodingModel({ chunkDelayMs: 0 });
 * ```
 */
export function createScriptedCodingModel(options: { chunkDelayMs?: number } = {}): MockLanguageModelV3 {
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  return new MockLanguageModelV3({
    provider: 'acpkit-example',
    modelId: 'scripted-coder',
    doStream: async (options) => ({
      stream: simulateReadableStream({
        chunks: nextParts(options),
        initialDelayInMs: null,
        chunkDelayInMs: chunkDelayMs > 0 ? chunkDelayMs : null,
      }),
    }),
  });
}
