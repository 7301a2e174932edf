// The release agent: a LangChain.js `createAgent` with a todo list (todoListMiddleware → ACP `plan`) and a deploy
// tool behind humanInTheLoopMiddleware (→ `session/request_permission`, edit as a form), exposed over ACP by
// createLangChainAgent. Offline, LangChain's own `fakeModel()` plays the model (scripted-model.ts).
import { createLangChainAgent } from '@acpkit/langchain';
import type { AgentApp } from '@agentclientprotocol/sdk';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, todoListMiddleware, tool } from 'langchain';
import { z } from 'zod';
import { createScriptedReleaseModel } from './scripted-model.js';

/** The service this example releases. */
export const SERVICE = 'checkout-service';
/** The version this example releases. */
export const VERSION = '1.4.2';

/**
 * The example's deploy tool (it asks the client first: humanInTheLoopMiddleware).
 *
 * @example
 * ```ts
 * import { deployTool } from '@acpkit/example-langchain-agent';
 *
 * console.log(deployTool.name); // deploy
 * ```
 */
export const deployTool = tool(
  async ({ environment, replicas }) =>
    `Deployed ${SERVICE} ${VERSION} to ${environment} with ${replicas} replicas.`,
  {
    name: 'deploy',
    description: `Deploy ${SERVICE} ${VERSION} to an environment.`,
    schema: z.object({
      environment: z.enum(['staging', 'production']).meta({ title: 'Environment' }),
      replicas: z.int().min(1).max(5).meta({ title: 'Replicas' }),
    }),
  },
);

/** Sessions of every agent app this module makes (one per connection under `acpremote serve`). */
const checkpointer = new MemorySaver();

/**
 * A fresh SDK `AgentApp` for one connection; all share one checkpointer, so a client can come back to a session.
 *
 * @example
 * ```ts
 * import { createReleaseAgent } from '@acpkit/example-langchain-agent';
 *
 * const app = createReleaseAgent();
 * ```
 */
export function createReleaseAgent(options: { readonly model?: BaseChatModel } = {}): AgentApp {
  const agent = createAgent({
    model: options.model ?? createScriptedReleaseModel(),
    tools: [deployTool],
    systemPrompt: `You release ${SERVICE} ${VERSION}. Plan with write_todos, then call deploy.`,
    middleware: [todoListMiddleware(), humanInTheLoopMiddleware({ interruptOn: { deploy: true } })],
    checkpointer,
  });
  return createLangChainAgent({ name: 'langchain-release-agent', version: '0.0.0', agent });
}
