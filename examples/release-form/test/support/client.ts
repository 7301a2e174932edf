import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';

export type Entrypoint = 'stable' | 'unstable';

export type ElicitationAnswer = (
  context: sdk.ClientRequestContext<sdk.CreateElicitationRequest>,
) => sdk.CreateElicitationResponse | Promise<sdk.CreateElicitationResponse>;

/** Answers with the `default` of every property that has one, as `acpkit client --yes` does. */
export const acceptDefaults: ElicitationAnswer = ({ params }) => {
  if (!sdk.CreateElicitationRequest.isForm(params)) return { action: 'decline' };
  const content: Record<string, sdk.ElicitationContentValue> = {};
  for (const [name, property] of Object.entries(params.requestedSchema.properties ?? {})) {
    const value = (property as { default?: sdk.ElicitationContentValue | null }).default;
    if (value != null) content[name] = value;
  }
  return { action: 'accept', content };
};

/**
 * A real SDK client from `entrypoint`, connected over `stream`, initialized, with one session; it answers the
 * agent's elicitations with `answers` in order (the last one repeats), records what it was asked and the agent's text.
 */
export async function connectReleaseClient(
  entrypoint: Entrypoint,
  stream: sdk.Stream,
  options: { clientCapabilities: sdk.ClientCapabilities; answers?: readonly ElicitationAnswer[] },
) {
  const entry = (entrypoint === 'stable' ? sdk : unstable) as typeof sdk;
  const texts: string[] = [];
  const asked: sdk.CreateElicitationRequest[] = [];
  const answers = options.answers;
  let app = entry
    .client({ name: 'release-form-test-client' })
    .onNotification(entry.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text') {
        texts.push(params.update.content.text);
      }
    });
  if (answers !== undefined) {
    app = app.onRequest(entry.methods.client.elicitation.create, (context) => {
      asked.push(context.params);
      const answer = answers[Math.min(asked.length, answers.length) - 1];
      if (answer === undefined) throw new Error('no answer scripted');
      return answer(context);
    });
  }
  const connection = app.connect(stream);
  await connection.agent.request(entry.methods.agent.initialize, {
    protocolVersion: entry.PROTOCOL_VERSION,
    clientCapabilities: options.clientCapabilities,
  });
  const { sessionId } = await connection.agent.request(entry.methods.agent.session.new, {
    cwd: '/',
    mcpServers: [],
  });
  return {
    connection,
    sessionId,
    texts,
    /** The agent's text of every turn so far, line by line. */
    lines: () =>
      texts
        .join('')
        .split('\n')
        .filter((line) => line !== ''),
    asked,
    prompt: () =>
      connection.agent.request(entry.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'plan the release' }],
      }),
    cancel: () => connection.agent.notify(entry.methods.agent.session.cancel, { sessionId }),
  };
}

/** Two message streams joined back to back, as a transport would join them. */
export function createWirePair(): { agentSide: sdk.Stream; clientSide: sdk.Stream } {
  const clientToAgent = new TransformStream<sdk.AnyMessage, sdk.AnyMessage>();
  const agentToClient = new TransformStream<sdk.AnyMessage, sdk.AnyMessage>();
  return {
    agentSide: { readable: clientToAgent.readable, writable: agentToClient.writable },
    clientSide: { readable: agentToClient.readable, writable: clientToAgent.writable },
  };
}
