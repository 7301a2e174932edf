// Sessions carried across a lost server, through the built CLIs: `acpremote serve` of the sessions agent (an AI SDK
// agent whose scripted model answers with every prompt it was given) over a file store, an editor (the SDK's client)
// on the stdio of `acpremote mirror` (WebSocket) or `acpkit run --addr` (Streamable HTTP). The server is killed with
// SIGKILL in the middle of a turn and started again on the same port: the turn in flight gets the error that says
// the session continues, and the editor's next prompt, on the same session id, is answered from the whole history.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { methods, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectTestClient,
  declineElicitation,
  processStream,
  type TestClient,
} from './support/acp-client.js';
import { fixturePath } from './support/paths.js';
import { reapAll, waitUntil } from './support/processes.js';
import { type MirrorCli, spawnMirror, startServe } from './support/remote-servers.js';

const agentPath = fixturePath('sessions-agent.mjs');
const scratch: string[] = [];

afterEach(async () => {
  await reapAll();
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** One prompt; resolves with the agent text the turn streamed. */
async function turn(client: TestClient, sessionId: string, text: string): Promise<string> {
  const before = client.agentText().length;
  await client.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
  return client.agentText().slice(before);
}

const cases: ReadonlyArray<{ mirror: MirrorCli; transport: 'websocket' | 'streamable-http' }> = [
  { mirror: 'acpremote mirror', transport: 'websocket' },
  { mirror: 'acpkit run --addr', transport: 'streamable-http' },
];

describe.each(cases)(
  '$mirror ($transport): the server killed mid-turn and restarted',
  ({ mirror, transport }) => {
    it("the turn in flight gets the carried error; the editor's next prompt continues the same conversation", async () => {
      const directory = mkdtempSync(join(tmpdir(), 'acpkit-carried-'));
      scratch.push(directory);
      const env = { ACPKIT_SESSIONS_STORE: `file:${join(directory, 'sessions')}` };
      const target = `${agentPath}:createAgent`;
      const first = await startServe(target, [], { env });
      const url = transport === 'websocket' ? first.url : `${first.origin}/acp`;
      const mirrorProcess = spawnMirror(mirror, url);
      const client = connectTestClient(processStream(mirrorProcess), declineElicitation);
      const { agent } = client.connection;
      await agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = await agent.request(methods.agent.session.new, {
        cwd: directory,
        mcpServers: [],
      });
      expect(await turn(client, sessionId, 'one')).toBe('Seen 1 prompts: one.');

      // A slow turn: once its first chunk arrived, the server dies under it (no close frame, no FIN from its side
      // before the kernel's), then comes back on the same port.
      const seen = client.agentText().length;
      const interrupted = turn(client, sessionId, 'slow two').catch((error: unknown) => error);
      await waitUntil(() => client.agentText().length > seen, 'the slow turn streams');
      first.process.child.kill('SIGKILL');
      await first.process.exited;
      await startServe(target, ['--port', String(first.port)], { env });

      const error = (await interrupted) as RequestError;
      expect(error).toBeInstanceOf(RequestError);
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(
        /^ACP remote server lost while this request was in flight .*the session was carried to a new connection and continues: send the request again$/,
      );
      expect(error.data).toMatchObject({ reason: 'session_carried', transport });
      // The killed turn was never stored; every completed one reaches the model.
      expect(await turn(client, sessionId, 'three')).toBe('Seen 2 prompts: one | three.');
      // One line at the loss, one when the sessions are carried; no secret (there is none) and no JSON-RPC on stderr.
      await mirrorProcess.waitForStderr(
        /sessions carried to a new connection; .* carried=1 lost=0 method="session\/resume"/,
      );
      expect(mirrorProcess.stderr()).toMatch(
        /remote server lost; carrying the sessions to a new connection .*sessions=1 inFlight=1/,
      );
      mirrorProcess.child.stdin?.end();
      expect((await mirrorProcess.exited).code).toBe(0);
    });
  },
);
