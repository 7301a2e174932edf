// Loads the installed @acpkit/ai-sdk with the installed `ai` (one copy) and runs one prompt of an AI SDK agent against
// an SDK client in memory: a scripted model (the AI SDK's MockLanguageModelV3) streams text and calls a tool that
// needs approval; the client allows it. Prints the outcome as JSON.
import { createAiSdkAgent } from '@acpkit/ai-sdk';
import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const streamOf = (parts) =>
  new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
const model = new MockLanguageModelV3({
  doStream: async ({ prompt }) => ({
    stream: streamOf(
      prompt.at(-1)?.role === 'tool'
        ? [
            { type: 'text-start', id: 't2' },
            { type: 'text-delta', id: 't2', delta: 'Deployed.' },
            { type: 'text-end', id: 't2' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ]
        : [
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'Deploying. ' },
            { type: 'text-end', id: 't1' },
            {
              type: 'tool-call',
              toolCallId: 'call-1',
              toolName: 'deploy',
              input: '{"environment":"production"}',
            },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
          ],
    ),
  }),
});
const deploy = tool({
  description: 'Deploy.',
  inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
  needsApproval: true,
  execute: async ({ environment }) => ({ deployed: environment }),
});
const agentApp = createAiSdkAgent({ name: 'release-check', version: '0.0.0', model, tools: { deploy } });

const texts = [];
const statuses = [];
const permissions = [];
const outcome = await client({ name: 'release-check-client' })
  .onNotification(methods.client.session.update, ({ params }) => {
    const { update } = params;
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text')
      texts.push(update.content.text);
    if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update')
      statuses.push(update.status);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params.toolCall.toolCallId);
    return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
  })
  .connectWith(agentApp, async (context) => {
    const initialized = await context.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await context.request(methods.agent.session.new, {
      cwd: process.cwd(),
      mcpServers: [],
    });
    const { stopReason } = await context.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Deploy' }],
    });
    return { agentInfo: initialized.agentInfo, stopReason };
  });
console.log(JSON.stringify({ ...outcome, text: texts.join(''), statuses, permissions }));
