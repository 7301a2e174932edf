// The release-helper agent: an AI SDK model with a deploy tool that needs approval and askUserTool(), exposed over
// ACP by createAiSdkAgent.
import { askUserTool, createAiSdkAgent, InMemorySessionStore } from '@acpkit/ai-sdk';
import type { AgentApp } from '@agentclientprotocol/sdk';
import { type LanguageModel, tool } from 'ai';
import { z } from 'zod';
import { SERVICE, VERSION } from './release.js';
import { createScriptedReleaseModel } from './scripted-model.js';

/**
 * The system prompt (what a real model is told).
 *
 * @example
 * ```ts
 * import { RELEASE_HELPER_SYSTEM } from '@acpkit/example-ai-sdk-agent';
 *
 * console.log(RELEASE_HELPER_SYSTEM);
 * ```
 */
export const RELEASE_HELPER_SYSTEM =
  `You help release ${SERVICE} ${VERSION}. When the user asks to release or deploy it, ask which environment ` +
  '(staging or production) with the askUser tool unless they already said, then call the deploy tool. Keep ' +
  'replies to one or two sentences.';

/**
 * The example's deploy tool: it needs approval, so the client is asked before it runs.
 *
 * @example
 * ```ts
 * import { deployTool } from '@acpkit/example-ai-sdk-agent';
 *
 * console.log(deployTool.description);
 * ```
 */
export const deployTool = tool({
  description: `Deploy ${SERVICE} ${VERSION} to an environment.`,
  title: `Deploy ${SERVICE}`,
  inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
  needsApproval: true,
  execute: async ({ environment }) => ({
    service: SERVICE,
    version: VERSION,
    environment,
    status: 'deployed',
  }),
});

/** The default model id when the AI Gateway is used (`ACPKIT_EXAMPLE_MODEL` overrides it). */
const DEFAULT_GATEWAY_MODEL = 'openai/gpt-5-mini';

/**
 * The model the example uses: a real one through the Vercel AI Gateway when `AI_GATEWAY_API_KEY` is set
 * (`ACPKIT_EXAMPLE_MODEL`, default `openai/gpt-5-mini`), else the offline scripted model, paced by
 * `ACPKIT_EXAMPLE_CHUNK_DELAY_MS` (default 0).
 *
 * @example
 * ```ts
 * import { modelFromEnvironment } from '@acpkit/example-ai-sdk-agent';
 *
 * const model = modelFromEnvironment(process.env);
 * ```
 */
export function modelFromEnvironment(env: NodeJS.ProcessEnv): LanguageModel {
  if (env.AI_GATEWAY_API_KEY) return env.ACPKIT_EXAMPLE_MODEL || DEFAULT_GATEWAY_MODEL;
  return createScriptedReleaseModel({ chunkDelayMs: Number(env.ACPKIT_EXAMPLE_CHUNK_DELAY_MS ?? 0) || 0 });
}

/** One session store for every agent app this module makes, so `acpremote serve` connections share sessions. */
const sessionStore = new InMemorySessionStore();

/**
 * Creates the release-helper agent: an AI SDK model with a `deploy` tool that needs approval and `askUserTool()`,
 * exposed over ACP by `createAiSdkAgent`. Each call returns a fresh SDK `AgentApp`; they share one session store, so a
 * client served by one can load its session through another (`session/load`).
 *
 * @example
 * ```ts
 * import { createReleaseHelperAgent } from '@acpkit/example-ai-sdk-agent';
 * import { ndJsonStream } from '@agentclientprotocol/sdk';
 * import { Readable, Writable } from 'node:stream';
 *
 * createReleaseHelperAgent().connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
 * ```
 */
export function createReleaseHelperAgent(options: { model?: LanguageModel } = {}): AgentApp {
  return createAiSdkAgent({
    name: 'release-helper',
    title: 'Release helper (AI SDK example)',
    version: '0.0.0',
    model: options.model ?? modelFromEnvironment(process.env),
    system: RELEASE_HELPER_SYSTEM,
    tools: { deploy: deployTool, askUser: askUserTool() },
    maxSteps: 10,
    sessionStore,
    describeToolCall: ({ toolName, input }) =>
      toolName === 'deploy'
        ? {
            title: `Deploy ${SERVICE} ${VERSION} to ${(input as { environment?: string }).environment}`,
            kind: 'execute',
          }
        : undefined,
  });
}
