// The SDK's own Streamable HTTP and WebSocket clients against our server with a bearer token, exactly as
// docs/remote-transport.md ("Connect with the SDK's own clients") shows them: the token as an Authorization header.
import { client, methods, PROTOCOL_VERSION, type Stream } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Cleanup, startEchoServer } from './support/helpers.js';

const TOKEN = 'sdk-clients-test-token';
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function initializeOver(stream: Stream) {
  const editor = client({ name: 'my-editor' }).connect(stream);
  cleanup.add(() => editor.close());
  return editor.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
}

describe("the SDK's own clients against a server that requires a token", () => {
  it.each([
    [
      'createHttpStream',
      (endpoint: string, headers: Record<string, string>) => createHttpStream(endpoint, { headers }),
    ],
    [
      'createWebSocketStream with ws',
      (endpoint: string, headers: Record<string, string>) =>
        createWebSocketStream(endpoint.replace(/^http/, 'ws'), { WebSocket, headers }),
    ],
  ])('%s initializes with the token as an Authorization header', async (_name, open) => {
    const server = await startEchoServer(cleanup, { bearerToken: TOKEN });
    const answer = await initializeOver(open(server.endpoint, { Authorization: `Bearer ${TOKEN}` }));
    expect(answer.protocolVersion).toBe(PROTOCOL_VERSION);
  });

  it('createHttpStream without the token is refused (401)', async () => {
    const server = await startEchoServer(cleanup, { bearerToken: TOKEN });
    await expect(initializeOver(createHttpStream(server.endpoint))).rejects.toMatchObject({
      status: 401,
      body: 'missing or invalid bearer token\n',
    });
  });
});
