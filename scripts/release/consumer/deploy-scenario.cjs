// The release check's scenario, shared by the ESM and CommonJS entry points: an SDK agent that asks
// "Choose a deployment target" with @acpkit/elicitation's askChoice, and an SDK client that accepts Production.
// The SDK and @acpkit/elicitation are passed in, so each caller proves its own way of loading them (import or require).
'use strict';

const question = 'Choose a deployment target';

/**
 * A fresh agent app per connection: capabilities are captured per connection by the closure.
 * @param {{ sdk: typeof import('@agentclientprotocol/sdk'), elicitation: typeof import('@acpkit/elicitation') }} modules
 */
function createDeployAgent({ sdk, elicitation }) {
  let clientCapabilities;
  let sessions = 0;
  return sdk
    .agent({ name: 'acpkit-release-check-agent' })
    .onRequest(sdk.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return { protocolVersion: sdk.PROTOCOL_VERSION, agentCapabilities: {} };
    })
    .onRequest(sdk.methods.agent.session.new, () => {
      sessions += 1;
      return { sessionId: `release-check-${sessions}` };
    })
    .onRequest(sdk.methods.agent.session.prompt, async ({ params, client }) => {
      const session = new elicitation.AcpSessionContext({
        sessionId: params.sessionId,
        client,
        clientCapabilities,
      });
      const result = await session.askChoice(question, [
        { value: 'preview', label: 'Preview' },
        {
          value: 'production',
          label: 'Production',
          description: 'Deploy to the production environment.',
          default: true,
        },
      ]);
      const text =
        result.status === 'accepted'
          ? `Selected: ${result.value} (source: ${result.source})`
          : `Not accepted: ${result.status}`;
      await client.notify(sdk.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
      });
      return { stopReason: 'end_turn' };
    });
}

/**
 * A client that advertises form elicitation, accepts the option titled "Production" and records the request it saw.
 * @param {{ sdk: typeof import('@agentclientprotocol/sdk') }} modules
 * @param {{ elicitationRequests: unknown[] }} record
 */
function createProductionClient({ sdk }, record) {
  return sdk
    .client({ name: 'acpkit-release-check-client' })
    .onRequest(sdk.methods.client.elicitation.create, ({ params }) => {
      record.elicitationRequests.push(params);
      const options = params.requestedSchema?.properties?.choice?.oneOf ?? [];
      const production = options.find((option) => option.title === 'Production');
      if (!production) return { action: 'decline' };
      return { action: 'accept', content: { choice: production.const } };
    });
}

/**
 * Connects the production client to `target` (an agent app in memory, or a JSON-RPC stream), prompts once and
 * returns what came back.
 * @param {{ sdk: typeof import('@agentclientprotocol/sdk') }} modules
 * @param {unknown} target
 * @param {string} cwd
 */
async function promptOnce(modules, target, cwd) {
  const { sdk } = modules;
  const record = { elicitationRequests: [] };
  const outcome = await createProductionClient(modules, record).connectWith(target, async (agent) => {
    await agent.request(sdk.methods.agent.initialize, {
      protocolVersion: sdk.PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
    });
    return agent.buildSession(cwd).withSession(async (session) => {
      const [response, text] = await Promise.all([
        session.prompt('Deploy the release check.'),
        session.readText(),
      ]);
      return { stopReason: response.stopReason, text };
    });
  });
  return { ...outcome, elicitationRequests: record.elicitationRequests };
}

module.exports = { question, createDeployAgent, createProductionClient, promptOnce };
