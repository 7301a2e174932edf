import { client, methods, PROTOCOL_VERSION, type Stream } from '@agentclientprotocol/sdk';

/** Runs initialize → session/new → session/prompt over `stream` with a real SDK client; returns the agent's text. */
export async function promptOnce(stream: Stream, text: string): Promise<string> {
  let reply = '';
  const app = client({ name: 'acpremote-test-client' }).onNotification(
    methods.client.session.update,
    ({ params }) => {
      const update = params.update as { sessionUpdate: string; content?: { type: string; text?: string } };
      if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text') {
        reply += update.content.text ?? '';
      }
    },
  );
  const connection = app.connect(stream);
  await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await connection.agent.request(methods.agent.session.new, {
    cwd: process.cwd(),
    mcpServers: [],
  });
  await connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
  return reply;
}
