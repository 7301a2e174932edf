// The LangChain agent a newcomer writes after `npm install @acpkit/langchain langchain` from the registry (plain
// JavaScript, run as it is): a `createAgent` with LangChain's own fake chat model (no API key) whose deploy tool is
// reviewed by humanInTheLoopMiddleware, so the editor is asked for permission over stdio before the tool runs.
import { Readable, Writable } from 'node:stream';
import { createLangChainAgent } from '@acpkit/langchain';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';

const deploy = tool(async ({ environment }) => `Deployed to ${environment}.`, {
  name: 'deploy',
  description: 'Deploy the service to an environment.',
  schema: z.object({ environment: z.enum(['staging', 'production']) }),
});
const model = fakeModel();
model.respondWithTools([{ name: 'deploy', args: { environment: 'production' }, id: 'deploy-1' }]);
model.respond(new AIMessage('Deployed to production.'));

createLangChainAgent({
  name: 'newcomer-langchain',
  version: '1.0.0',
  agent: createAgent({
    model,
    tools: [deploy],
    middleware: [humanInTheLoopMiddleware({ interruptOn: { deploy: true } })],
  }),
}).connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
