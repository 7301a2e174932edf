import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';

export type Entrypoint = 'stable' | 'unstable';

/** Two message streams joined back to back, as a transport would join them. */
export function createWirePair(): {
  agentSide: sdk.Stream;
  clientSide: sdk.Stream;
  toClient: sdk.AnyMessage[];
} {
  const toClient: sdk.AnyMessage[] = [];
  const clientToAgent = new TransformStream<sdk.AnyMessage, sdk.AnyMessage>();
  const agentToClient = new TransformStream<sdk.AnyMessage, sdk.AnyMessage>({
    transform(message, controller) {
      toClient.push(message);
      controller.enqueue(message);
    },
  });
  return {
    agentSide: { readable: clientToAgent.readable, writable: agentToClient.writable },
    clientSide: { readable: agentToClient.readable, writable: clientToAgent.writable },
    toClient,
  };
}

export type ElicitationAnswer = (
  context: sdk.ClientRequestContext<sdk.CreateElicitationRequest>,
) => sdk.CreateElicitationResponse | Promise<sdk.CreateElicitationResponse>;

/** Connects a real SDK client over `stream`, initializes it, opens a session and collects the agent's text. */
export async function connectDeployClient(
  entrypoint: Entrypoint,
  stream: sdk.Stream,
  options: { clientCapabilities: sdk.ClientCapabilities; answer?: ElicitationAnswer },
) {
  const entry = (entrypoint === 'stable' ? sdk : unstable) as typeof sdk;
  const texts: string[] = [];
  let app = entry
    .client({ name: 'deploy-target-test-client' })
    .onNotification(entry.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text') {
        texts.push(params.update.content.text);
      }
    });
  if (options.answer) app = app.onRequest(entry.methods.client.elicitation.create, options.answer);
  const connection = app.connect(stream);
  const initialized = await connection.agent.request(entry.methods.agent.initialize, {
    protocolVersion: entry.PROTOCOL_VERSION,
    clientCapabilities: options.clientCapabilities,
  });
  const { sessionId } = await connection.agent.request(entry.methods.agent.session.new, {
    cwd: '/',
    mcpServers: [],
  });
  return {
    connection,
    initialized,
    sessionId,
    texts,
    prompt: () =>
      connection.agent.request(entry.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'deploy please' }],
      }),
    cancel: () => connection.agent.notify(entry.methods.agent.session.cancel, { sessionId }),
  };
}
