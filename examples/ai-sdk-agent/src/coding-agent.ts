// The coding agent: an AI SDK model that works in the editor's world through @acpkit/ai-sdk — files read and
// edited through the editor (diffs on the tool calls), commands in the editor's terminal, a plan, two modes (ask:
// read-only; code: everything), slash commands, usage, and the editor's own MCP servers.
import { clientFileTools, clientTerminalTool, createAiSdkAgent, planTool } from '@acpkit/ai-sdk';
import { editorMcpServers } from '@acpkit/ai-sdk/mcp';
import { memorySessionStore } from '@acpkit/sessions';
import type { AgentApp } from '@agentclientprotocol/sdk';
import type { LanguageModel } from 'ai';
import { createScriptedCodingModel } from './scripted-coder.js';

/**
 * The coding agent's system prompt.
 *
 * @example
 * ```ts
 * import { CODING_AGENT_SYSTEM } from '@acpkit/example-ai-sdk-agent';
 *
 * console.log(CODING_AGENT_SYSTEM);
 * ```
 */
export const CODING_AGENT_SYSTEM =
  'You are a careful coding agent working in the user’s editor. Publish a short plan with the plan tool for any ' +
  'task of more than one step and keep it current. Read files before editing them; edit with exact replacements; ' +
  'check your work with a command in the terminal. Keep replies short.';

const DEFAULT_GATEWAY_MODEL = 'openai/gpt-5-mini';

/**
 * The coding agent's model: a real one through the AI Gateway when `AI_GATEWAY_API_KEY` is set
 * (`ACPKIT_EXAMPLE_MODEL` picks it), else the offline scripted model.
 *
 * @example
 * ```ts
 * import { codingModelFromEnvironment } from '@acpkit/example-ai-sdk-agent';
 *
 * const model = codingModelFromEnvironment(process.env);
 * ```
 */
export function codingModelFromEnvironment(env: NodeJS.ProcessEnv): LanguageModel {
  if (env.AI_GATEWAY_API_KEY) return env.ACPKIT_EXAMPLE_MODEL || DEFAULT_GATEWAY_MODEL;
  return createScriptedCodingModel({ chunkDelayMs: Number(env.ACPKIT_EXAMPLE_CHUNK_DELAY_MS ?? 0) || 0 });
}

const sessionStore = memorySessionStore();

/**
 * Creates the coding agent's app (one per connection).
 *
 * @example
 * ```ts
 * import { createCodingAgent } from '@acpkit/example-ai-sdk-agent';
 *
 * const app = createCodingAgent();
 * ```
 */
export function createCodingAgent(options: { model?: LanguageModel } = {}): AgentApp {
  return createAiSdkAgent({
    name: 'coding-agent',
    title: 'Coding agent (AI SDK example)',
    version: '0.0.0',
    model: options.model ?? codingModelFromEnvironment(process.env),
    system: CODING_AGENT_SYSTEM,
    tools: {
      ...clientFileTools(),
      // Commands run as given (no shell), after the user allows them.
      terminal: clientTerminalTool({ timeoutMs: 120_000 }),
      plan: planTool(),
    },
    modes: [
      { id: 'code', name: 'Code', description: 'Reads, edits and runs commands.' },
      {
        id: 'ask',
        name: 'Ask',
        description: 'Reads and plans; changes nothing.',
        system: `${CODING_AGENT_SYSTEM} In this mode you must not change anything: answer and plan only.`,
        tools: ['readFile', 'plan'],
      },
    ],
    commands: [
      {
        name: 'fix',
        description: 'Fix a problem in a file',
        input: { hint: 'what to fix' },
        prompt: 'Fix this: $ARGUMENTS. Plan, read the file, edit it and check the result.',
      },
      {
        name: 'status',
        description: 'Show the session’s mode and options',
        run: ({ modeId, config, cwd }) =>
          `Mode: ${modeId ?? 'code'}; options: ${JSON.stringify(config)}; cwd: ${cwd}`,
      },
    ],
    usage: {
      contextWindow: 400_000,
      prices: { inputPerMillion: 0.25, outputPerMillion: 2, currency: 'USD' },
    },
    mcp: editorMcpServers(),
    maxSteps: 20,
    sessionStore,
  });
}
