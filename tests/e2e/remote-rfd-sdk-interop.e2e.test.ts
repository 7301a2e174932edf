// ACP's standard remote transport (the RFD "Streamable HTTP & WebSocket Transport") against the TypeScript ACP SDK
// 2.4's own implementation, both ways, each with an elicitation answered:
// - the SDK's clients (`createHttpStream`, `createWebSocketStream` from `/experimental/*-client`) → our
//   `acpremote expose -- node examples/deploy-target` at its endpoint `<mount>` (askChoice);
// - our mirrors (built CLIs) → the SDK's `AcpServer` (fixtures/sdk-acp-server.mjs: Streamable HTTP and WebSocket
//   through `/experimental/node`) serving the same agent, the elicitation answered through the mirror's stdio;
// - the RFD WebSocket rules both servers share: `Acp-Connection-Id` on the 101, a first message other than
//   `initialize` closes with 1002.
// One server of each kind serves the whole file.
import type { IncomingMessage } from 'node:http';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { acceptChoiceTitled, connectTestClient, runPromptTurn } from './support/acp-client.js';
import { runMirrorTurn } from './support/mirror-turn.js';
import { deployTarget, fixturePath } from './support/paths.js';
import { reapAll, type SpawnedProcess, spawnProcess } from './support/processes.js';
import { type MirrorCli, type RunningServer, startExpose } from './support/remote-servers.js';

/** The SDK's `AcpServer` fixture and its endpoint (`http://127.0.0.1:PORT/acp`). */
interface SdkServer {
  readonly process: SpawnedProcess;
  readonly endpoint: string;
}

async function startSdkAcpServer(): Promise<SdkServer> {
  const server = spawnProcess(process.execPath, [fixturePath('sdk-acp-server.mjs')]);
  const match = await server.waitForStderr(/SDK AcpServer at (http:\/\/\S+)\n/);
  return { process: server, endpoint: match[1] as string };
}

const toWebSocketUrl = (endpoint: string) => endpoint.replace(/^http/, 'ws');

let ours: RunningServer;
let sdk: SdkServer;
/** Our server's RFD endpoint: `http://127.0.0.1:PORT/acp`. */
let ourEndpoint: string;

beforeAll(async () => {
  [ours, sdk] = await Promise.all([
    startExpose([process.execPath, deployTarget.directory]),
    startSdkAcpServer(),
  ]);
  ourEndpoint = `${ours.origin}/acp`;
});

afterAll(async () => {
  await reapAll();
});

/** A `ws` WebSocket that keeps the `Acp-Connection-Id` of its 101 (the SDK client passes it the constructor). */
function webSocketRecordingConnectionIds(connectionIds: string[]) {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[], options?: WebSocket.ClientOptions) {
      super(address, protocols, options);
      this.once('upgrade', (response: IncomingMessage) => {
        connectionIds.push(String(response.headers['acp-connection-id'] ?? ''));
      });
    }
  };
}

describe('TypeScript SDK clients → our acpremote expose -- node examples/deploy-target', () => {
  it('createHttpStream(<endpoint>) answers the agent’s askChoice and gets its reply', async () => {
    const stream = createHttpStream(ourEndpoint);
    const client = connectTestClient(stream, acceptChoiceTitled('Production'));

    const turn = await runPromptTurn(client, 'deploy please');

    expect(turn).toMatchObject({ stopReason: 'end_turn', text: 'Selected: production' });
    expect(client.elicitations).toHaveLength(1);
    await client.connection.close();
  });

  it('createWebSocketStream(ws://…<endpoint>) gets Acp-Connection-Id on the 101 and the agent’s reply', async () => {
    const connectionIds: string[] = [];
    const stream = createWebSocketStream(toWebSocketUrl(ourEndpoint), {
      WebSocket: webSocketRecordingConnectionIds(connectionIds) as never,
    });
    const client = connectTestClient(stream, acceptChoiceTitled('Preview'));

    const turn = await runPromptTurn(client, 'deploy please');

    expect(turn).toMatchObject({ stopReason: 'end_turn', text: 'Selected: preview' });
    expect(connectionIds).toEqual([expect.stringMatching(/^[0-9a-f-]{32,36}$/)]);
    await client.connection.close();
  });
});

describe('the RFD WebSocket rules, on our server as on the SDK’s AcpServer', () => {
  it.each([
    ['our acpremote expose', () => ourEndpoint],
    ['the SDK AcpServer', () => sdk.endpoint],
  ])('%s closes with 1002 when the first message is not initialize', async (_server, endpoint) => {
    const socket = new WebSocket(toWebSocketUrl(endpoint()));
    const upgrade = new Promise<IncomingMessage>((resolve) =>
      socket.once('upgrade', (response) => resolve(response)),
    );
    socket.once('open', () =>
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'session/new',
          params: { cwd: '/', mcpServers: [] },
        }),
      ),
    );
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );

    expect((await upgrade).headers['acp-connection-id']).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(await closed).toEqual({ code: 1002, reason: 'First message must be initialize' });
  });
});

const ourMirrorsToSdk: Array<[MirrorCli, 'http' | 'ws', string]> = [
  ['acpremote mirror', 'http', 'Production'],
  ['acpkit run --addr', 'http', 'Preview'],
  ['acpkit run --addr', 'ws', 'Production'],
  ['acpremote mirror', 'ws', 'Preview'],
];

describe.each(ourMirrorsToSdk)(
  'our %s %s://…/acp → the SDK’s AcpServer → deploy-target',
  (mirrorCli, scheme, title) => {
    it('relays the elicitation to the editor on its stdio and the answer back to the agent', async () => {
      const url = scheme === 'http' ? sdk.endpoint : toWebSocketUrl(sdk.endpoint);
      const run = await runMirrorTurn(mirrorCli, url, acceptChoiceTitled(title));

      expect(run.turn).toMatchObject({ stopReason: 'end_turn', text: `Selected: ${title.toLowerCase()}` });
      expect(run.elicitations).toEqual([expect.objectContaining({ message: 'Choose a deployment target' })]);
      expect(run.exit).toEqual({ code: 0, signal: null });
    });
  },
);
