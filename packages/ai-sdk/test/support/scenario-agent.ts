// The scenario agent every adapter test talks to, with its scripted model. The model is the AI SDK's own mock
// (`MockLanguageModelV3` from `ai@6/test`, `MockLanguageModelV4` from `ai@7/test`); what it streams depends on the
// prompt: the text of the last user message names a scenario, and the number of assistant messages after it is the
// step. The adapter, the `ai` copy and zod are passed in, so the ai 6 tests (the source, in-process) and the ai 7
// agent process (the built package on Node 22+) build the same agent from their own copies. Only type imports:
// Node runs this file with type stripping in the ai 7 agent process.
import type { AgentApp } from '@agentclientprotocol/sdk';
import type * as AdapterModule from '../../src/index.js';

/** A provider stream part (LanguageModelV3StreamPart / V4: the same shapes for what the scenarios use). */
export type ProviderPart = { readonly type: string } & Record<string, unknown>;

interface PromptPart {
  readonly type: string;
  readonly text?: string;
  readonly mediaType?: string;
  readonly toolName?: string;
  readonly output?: { readonly type: string; readonly value?: unknown; readonly reason?: string };
}
interface PromptMessage {
  readonly role: string;
  readonly content: string | readonly PromptPart[];
}
/** What the model's doStream receives, as far as the scripts read it. */
export interface ModelCall {
  readonly prompt: readonly PromptMessage[];
  readonly abortSignal?: AbortSignal;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly tools?: readonly { readonly name: string }[];
}

/** The constructor of the AI SDK's mock model (either major). */
export type MockModelClass = new (options: {
  provider?: string;
  modelId?: string;
  doStream: (options: ModelCall) => Promise<{ stream: ReadableStream<ProviderPart> }>;
}) => object;

/** The AI SDK's `APICallError` (either major), for a realistic provider failure. */
export type ApiCallErrorClass = new (options: {
  message: string;
  url: string;
  requestBodyValues: unknown;
  statusCode?: number;
  isRetryable?: boolean;
}) => Error;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

export function finish(unified: string, raw = unified): ProviderPart {
  return { type: 'finish', finishReason: { unified, raw }, usage };
}

export function text(...chunks: string[]): ProviderPart[] {
  return [
    { type: 'text-start', id: 'text-1' },
    ...chunks.map((delta) => ({ type: 'text-delta', id: 'text-1', delta })),
    { type: 'text-end', id: 'text-1' },
  ];
}

export function reasoning(...chunks: string[]): ProviderPart[] {
  return [
    { type: 'reasoning-start', id: 'reasoning-1' },
    ...chunks.map((delta) => ({ type: 'reasoning-delta', id: 'reasoning-1', delta })),
    { type: 'reasoning-end', id: 'reasoning-1' },
  ];
}

export function toolCall(toolCallId: string, toolName: string, input: unknown): ProviderPart {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** The text of a message's content. */
function messageText(message: PromptMessage | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => part.text ?? '').join('');
}

/** The scenario a user message names: its first text part. */
function scenarioOf(message: PromptMessage | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content.trim();
  return (message.content.find((part) => part.type === 'text')?.text ?? '').trim();
}

/** What the last user message holds: `text: …` for text parts, `file: <media type>` for the others. */
function describeUserParts(message: PromptMessage | undefined): string {
  if (message === undefined || typeof message.content === 'string') return '';
  return message.content
    .map((part) => (part.type === 'text' ? `text: ${part.text}` : `${part.type}: ${part.mediaType ?? '?'}`))
    .join(' | ');
}

/** Tool results the model got back in this turn, by tool name (the last one wins). */
function toolResults(messages: readonly PromptMessage[]): Map<string, PromptPart['output']> {
  const results = new Map<string, PromptPart['output']>();
  for (const message of messages) {
    if (message.role !== 'tool' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolName !== undefined) results.set(part.toolName, part.output);
    }
  }
  return results;
}

/** One model call as a script sees it. */
export interface ScenarioCall {
  /** The scenario: the text of the last user message. */
  readonly scenario: string;
  /** 0 for the first call of the turn, then one more per assistant message. */
  readonly step: number;
  readonly system: string;
  readonly userMessages: number;
  /** Outputs of the tools called in this turn, by tool name. */
  readonly results: Map<string, PromptPart['output']>;
  readonly lastUser: PromptMessage | undefined;
  readonly call: ModelCall;
}

/** A scripted reply: parts to stream, or a stream of its own (to stall), or an error thrown by doStream. */
export type ScenarioReply = readonly ProviderPart[] | ReadableStream<ProviderPart> | Error;

/** Everything the scripted model observed that a test may ask about (through the `report` scenario). */
export class ModelProbe {
  readonly events: string[] = [];
  /** More facts for the report, from whoever built the agent (the ai 7 process adds the packages it loaded). */
  facts: () => string[] = () => [];
}

function describeResult(output: PromptPart['output']): string {
  if (output === undefined) return 'no result';
  if (output.type === 'execution-denied') return `denied (${output.reason ?? 'no reason'})`;
  return JSON.stringify(output.value);
}

/**
 * The scenarios. `hello`: reasoning, then text in three chunks. `lookup`: a plain tool call, then a reply with its
 * result. `deploy`: a tool that needs approval, then a reply saying what happened. `ask-choice`, `ask-text`, `form`:
 * the question tools. `loop`: a tool call every step (hits maxSteps). `length`, `refuse`: other finish reasons.
 * `provider-error`: doStream throws the AI SDK's APICallError. `stream-error`: text, then an error part. `stall`:
 * text, then nothing until the call is aborted. `history`: says what it saw. `inputs`: the parts of the user
 * message. `call-settings`: the settings the call got. `report`: the probe's events.
 */
export function scenarioReply(
  call: ScenarioCall,
  probe: ModelProbe,
  ApiCallError: ApiCallErrorClass,
): ScenarioReply {
  const { scenario, step, results } = call;
  const reply = (...chunks: string[]) => [...text(...chunks), finish('stop')];
  switch (scenario) {
    case 'hello':
      return [...reasoning('Thinking ', 'it over.'), ...text('Hello', ', ', 'world!'), finish('stop')];
    case 'plan':
      return step === 0
        ? [
            toolCall('call-plan', 'plan', { entries: [{ content: 'Look it up', status: 'in_progress' }] }),
            finish('tool-calls'),
          ]
        : reply('Planned.');
    case 'tools':
      return reply(
        `system=${call.system} tools=${(call.call.tools ?? []).map((entry) => entry.name).join(',')}`,
      );
    case 'lookup':
      return step === 0
        ? [toolCall('call-lookup', 'lookup', { query: 'release notes' }), finish('tool-calls')]
        : reply(`Lookup said: ${describeResult(results.get('lookup'))}`);
    case 'deploy':
      return step === 0
        ? [
            toolCall(`call-deploy-${call.userMessages}`, 'deploy', { environment: 'production' }),
            finish('tool-calls'),
          ]
        : reply(`Deploy: ${describeResult(results.get('deploy'))}`);
    case 'ask-choice':
      return step === 0
        ? [
            ...text('Let me ', 'ask. '),
            toolCall('call-ask', 'askUser', {
              question: 'Which environment?',
              options: ['Staging', 'Production'],
            }),
            finish('tool-calls'),
          ]
        : reply(`Answer: ${describeResult(results.get('askUser'))}`);
    case 'ask-text':
      return step === 0
        ? [
            toolCall('call-ask', 'askUser', { question: 'What should the release be called?' }),
            finish('tool-calls'),
          ]
        : reply(`Answer: ${describeResult(results.get('askUser'))}`);
    case 'form':
      return step === 0
        ? [
            toolCall('call-form', 'settings', { message: 'Choose the rollout settings.' }),
            finish('tool-calls'),
          ]
        : reply(`Form: ${describeResult(results.get('settings'))}`);
    case 'loop':
      return [toolCall(`call-loop-${step}`, 'lookup', { query: `page ${step}` }), finish('tool-calls')];
    case 'length':
      return [...text('This answer is cut'), finish('length', 'max_tokens')];
    case 'refuse':
      return [finish('content-filter', 'content_filter')];
    case 'provider-error':
      return new ApiCallError({
        message: 'Rate limit exceeded: 3 requests per minute.',
        url: 'https://api.example.com/v1/chat',
        requestBodyValues: { secret: 'never shown' },
        statusCode: 429,
        isRetryable: false,
      });
    case 'stream-error':
      return [
        ...text('Partial '),
        { type: 'error', error: new Error('The model is overloaded.') },
        finish('error'),
      ];
    case 'stall':
      return stalled(call.call.abortSignal, probe);
    case 'history':
      return reply(`system=${call.system}; user messages=${call.userMessages}`);
    case 'inputs':
      return reply(describeUserParts(call.lastUser));
    case 'call-settings':
      return reply(`temperature=${call.call.temperature}; maxOutputTokens=${call.call.maxOutputTokens}`);
    case 'report':
      return reply([`events: ${probe.events.join(', ') || 'none'}`, ...probe.facts()].join('; '));
    default:
      return reply(`Unknown scenario: ${scenario}`);
  }
}

/** Streams a first chunk, then nothing until `signal` aborts (then errors the stream, as providers do). */
function stalled(signal: AbortSignal | undefined, probe: ModelProbe): ReadableStream<ProviderPart> {
  return new ReadableStream<ProviderPart>({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] });
      for (const part of text('Working on it')) {
        if (part.type !== 'text-end') controller.enqueue(part);
      }
      signal?.addEventListener(
        'abort',
        () => {
          probe.events.push('model call aborted');
          controller.error(signal.reason);
        },
        { once: true },
      );
    },
  });
}

function streamOf(parts: readonly ProviderPart[]): ReadableStream<ProviderPart> {
  return new ReadableStream<ProviderPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** The scripted model: one AI SDK mock model whose replies follow {@link scenarioReply}. */
export function createScenarioModel(
  MockLanguageModel: MockModelClass,
  ApiCallError: ApiCallErrorClass,
  probe = new ModelProbe(),
): { model: object; probe: ModelProbe } {
  const model = new MockLanguageModel({
    provider: 'acpkit-scenarios',
    modelId: 'scripted',
    doStream: async (call) => {
      const lastUser = call.prompt.findLastIndex((message) => message.role === 'user');
      const after = call.prompt.slice(lastUser + 1);
      const reply = scenarioReply(
        {
          scenario: scenarioOf(call.prompt[lastUser]),
          step: after.filter((message) => message.role === 'assistant').length,
          system: messageText(call.prompt.find((message) => message.role === 'system')),
          userMessages: call.prompt.filter((message) => message.role === 'user').length,
          results: toolResults(after),
          lastUser: call.prompt[lastUser],
          call,
        },
        probe,
        ApiCallError,
      );
      if (reply instanceof Error) throw reply;
      return { stream: reply instanceof ReadableStream ? reply : streamOf(reply) };
    },
  });
  return { model, probe };
}

/** What the scenario agent is built from. */
export interface ScenarioAgentParts {
  readonly adapter: Pick<typeof AdapterModule, 'createAiSdkAgent' | 'askUserTool' | 'formTool' | 'planTool'>;
  /** The `ai` package's `tool` helper (identity at run time; from the copy under test). */
  readonly tool: <T>(definition: T) => T;
  readonly MockLanguageModel: MockModelClass;
  readonly ApiCallError: ApiCallErrorClass;
  // biome-ignore lint/suspicious/noExplicitAny: zod's namespace, from the copy under test
  readonly z: any;
}

export const SCENARIO_SYSTEM = 'You are the scenario agent.';

/**
 * Builds the scenario agent; `overrides` go to createAiSdkAgent as they are, except `editorWorld: true`, which adds
 * the plan tool, usage (a 1 000-token window), modes `code` / `ask` (ask: system `ask system`, only `lookup`) and a
 * `/echo` command (options that are not JSON, so the ai 7 process builds them itself).
 */
export function createScenarioAgent(
  parts: ScenarioAgentParts,
  overrides: Record<string, unknown> = {},
  probe?: ModelProbe,
): { app: AgentApp; probe: ModelProbe } {
  const { adapter, tool, z } = parts;
  const { model, probe: modelProbe } = createScenarioModel(
    parts.MockLanguageModel,
    parts.ApiCallError,
    probe,
  );
  const tools = {
    lookup: tool({
      description: 'Look something up.',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }: { query: string }) => `3 results for ${query}`,
    }),
    deploy: tool({
      description: 'Deploy the service.',
      title: 'Deploy the service',
      inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
      needsApproval: true,
      execute: async ({ environment }: { environment: string }) => {
        modelProbe.events.push(`deploy ran (${environment})`);
        return { deployed: environment };
      },
    }),
    askUser: adapter.askUserTool(),
    settings: adapter.formTool({
      description: 'Ask for the rollout settings.',
      title: 'Rollout settings',
      schema: z.object({
        replicas: z.int().min(1).max(5).default(2).meta({ title: 'Replicas' }),
        region: z.enum(['eu', 'us']).meta({ title: 'Region' }),
      }),
    }),
  };
  const { editorWorld, ...rest } = overrides;
  const world =
    editorWorld === true
      ? {
          tools: { ...tools, plan: adapter.planTool() },
          usage: { contextWindow: 1_000 },
          modes: [
            { id: 'code', name: 'Code' },
            { id: 'ask', name: 'Ask', system: 'ask system', tools: ['lookup'] },
          ],
          commands: [
            { name: 'echo', description: 'Echo', run: ({ input }: { input: string }) => `echo: ${input}` },
          ],
        }
      : {};
  const app = adapter.createAiSdkAgent({
    name: 'scenario-agent',
    title: 'Scenario agent',
    version: '1.0.0',
    model,
    system: SCENARIO_SYSTEM,
    tools,
    maxSteps: 4,
    ...world,
    ...rest,
  } as Parameters<typeof adapter.createAiSdkAgent>[0]);
  return { app, probe: modelProbe };
}
