// An in-process SDK agent that asks its client one choice per prompt, and the SDK client that answers it: the
// elicitation round trip that the serveAcp tests drive over each transport.
import {
  agent,
  type ClientConnection,
  CreateElicitationResponse,
  client,
  methods,
  PROTOCOL_VERSION,
  type Stream,
} from '@agentclientprotocol/sdk';

export interface ChoiceAgentOptions {
  readonly name: string;
  /** The id of each new session. */
  readonly sessionId: () => string;
  /** The text of the message chunk sent after the answer (`c0`, or the action when not accepted). */
  readonly reply: (choice: string) => string;
}

/** Asks one choice (`c0`, "Red") per prompt, sends `reply(choice)` as an agent message chunk, ends the turn. */
export function choiceAgent(options: ChoiceAgentOptions) {
  return agent({ name: options.name })
    .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(methods.agent.session.new, () => ({ sessionId: options.sessionId() }))
    .onRequest(methods.agent.session.prompt, async ({ params, client: peer }) => {
      const answer = await peer.request(methods.client.elicitation.create, {
        sessionId: params.sessionId,
        mode: 'form',
        message: 'Pick one',
        requestedSchema: {
          type: 'object',
          required: ['choice'],
          properties: { choice: { type: 'string', title: 'Choice', oneOf: [{ const: 'c0', title: 'Red' }] } },
        },
      });
      const choice = CreateElicitationResponse.isAccept(answer)
        ? String(answer.content?.choice)
        : answer.action;
      await peer.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: options.reply(choice) },
        },
      });
      return { stopReason: 'end_turn' };
    });
}

/** A client of {@link choiceAgent}, initialized: accepts every choice with `c0` and records each message chunk. */
export async function choosingClient(
  stream: Stream,
): Promise<{ connection: ClientConnection; texts: string[] }> {
  const texts: string[] = [];
  const connection = client({ name: 'test-client' })
    .onRequest(methods.client.elicitation.create, () => ({ action: 'accept', content: { choice: 'c0' } }))
    .onNotification(methods.client.session.update, ({ params }) => {
      const update = params.update;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text')
        texts.push(update.content.text);
    })
    .connect(stream);
  await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
  return { connection, texts };
}
