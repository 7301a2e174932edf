// Transport interop, Python in front: Python `acpremote mirror` and `acpkit run --addr` (1.10, with
// `--unstable-protocol`) → WebSocket → our `acpremote expose` (built CLI, token required) of examples/deploy-target,
// whose agent asks a choice on every prompt. Between our server and the agent sits fixtures/record-stdin.mjs, so the
// test sees the `initialize` that reached our server. Measured: the prompt round trip works, but Python's mirror
// rebuilds the client capabilities without `elicitation`, so the agent never asks and replies that the client
// cannot show forms; the same chain with our mirror keeps the capability and the form round trip works.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNSUPPORTED_REPLY } from '@acpkit/example-deploy-target';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS, type JsonRpcPeer } from '../../e2e/support/json-rpc-peer.js';
import { deployTarget } from '../../e2e/support/paths.js';
import type { SpawnedProcess } from '../../e2e/support/processes.js';
import { reapAll } from '../../e2e/support/processes.js';
import { type RunningServer, spawnMirrorPeer, startExpose } from '../../e2e/support/remote-servers.js';
import { INTEROP_CLIENT_INFO, RawClientSession } from '../src/choice-agents.js';
import { acceptToken } from '../src/choice-cases.js';
import { quotedRefusal } from '../src/compatibility-tables.js';
import { interopPaths } from '../src/paths.js';
import { getOnFreshConnection, type PythonMirror, spawnPythonMirror } from '../src/remote-processes.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

failEveryTestWithoutPythonVenv();

const TOKEN_VARIABLE = 'ACPKIT_INTEROP_TOKEN';
const token = randomBytes(16).toString('hex');
const pythonMirrors: PythonMirror[] = ['python acpremote mirror', 'python acpkit run --addr'];
const captureDirectories: string[] = [];
/** The editor's project directory: a local path that means nothing on the server, so mirrors replace it. */
const EDITOR_CWD = '/home/editor/project';

/** Our `acpremote expose` (token required) of deploy-target behind the stdin recorder, and where it records. */
async function startRecordedDeployTarget(): Promise<{ server: RunningServer; captureDirectory: string }> {
  const captureDirectory = mkdtempSync(join(tmpdir(), 'acpkit-interop-capture-'));
  captureDirectories.push(captureDirectory);
  const server = await startExpose(
    [
      process.execPath,
      interopPaths.stdinRecorder,
      captureDirectory,
      process.execPath,
      deployTarget.directory,
    ],
    ['--token-env', TOKEN_VARIABLE],
    { env: { [TOKEN_VARIABLE]: token } },
  );
  return { server, captureDirectory };
}

/** The params of the first `method` request the deploy-target agent received: what reached our server, as sent. */
function forwarded(captureDirectory: string, method: string): Record<string, unknown> {
  const files = readdirSync(captureDirectory);
  expect(files, 'one agent process (one connection) was recorded').toHaveLength(1);
  const lines = readFileSync(join(captureDirectory, files[0] as string), 'utf8').split('\n');
  const request = lines
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { method?: string; params?: unknown })
    .find((message) => message.method === method);
  if (request === undefined) throw new Error(`no ${method} reached our server: ${lines.join('\n')}`);
  return request.params as Record<string, unknown>;
}

/** The `remote_cwd` our server reports (the mirrors rewrite session cwds to it). */
async function remoteCwdOf(server: RunningServer): Promise<string> {
  const reply = await getOnFreshConnection(`${server.origin}/acp`, { Authorization: `Bearer ${token}` });
  const remoteCwd = (JSON.parse(reply.body) as { remote_cwd?: unknown }).remote_cwd;
  expect(remoteCwd).not.toBe(EDITOR_CWD);
  return String(remoteCwd);
}

/** Ends the mirror's stdin and expects a clean exit. */
async function closeMirror(mirror: SpawnedProcess): Promise<void> {
  mirror.child.stdin?.end();
  expect(await mirror.exited).toEqual({ code: 0, signal: null });
}

afterEach(async () => {
  await reapAll();
});

afterAll(() => {
  for (const directory of captureDirectories) rmSync(directory, { recursive: true, force: true });
});

describe.each(pythonMirrors)(
  '%s --unstable-protocol → our acpremote expose of examples/deploy-target',
  (kind) => {
    it('completes a prompt round trip, but forwards none of the client capabilities (so no elicitation)', async () => {
      const { server, captureDirectory } = await startRecordedDeployTarget();
      const { mirror, peer } = spawnPythonMirror(
        kind,
        server.url,
        ['--unstable-protocol', '--token-env', TOKEN_VARIABLE],
        {
          [TOKEN_VARIABLE]: token,
        },
      );
      const session = await RawClientSession.open(peer, INITIALIZE_WITH_FORMS.clientCapabilities, EDITOR_CWD);
      expect(session.initializeResult).toMatchObject({ agentInfo: { name: 'deploy-target' } });

      const turn = await session.prompt('deploy please', acceptToken('choice_1'));

      expect(turn).toEqual({ elicitations: [], text: UNSUPPORTED_REPLY, stopReason: 'end_turn' });
      // The evidence: the client advertised forms, fs and terminal, and our server received no client capabilities
      // at all. Python's proxy rebuilds them from `_meta`, auth, fs (false) and terminal (false) only, and its SDK
      // serialises with `exclude_defaults`, so what is left equals the defaults and the whole object is dropped.
      expect(forwarded(captureDirectory, 'initialize')).toEqual({
        protocolVersion: 1,
        clientInfo: INTEROP_CLIENT_INFO,
      });
      // Python's mirror read our metadata (sending its token) and rewrote the session cwd to our remote_cwd.
      expect(forwarded(captureDirectory, 'session/new')).toMatchObject({ cwd: await remoteCwdOf(server) });
      await closeMirror(mirror);
    });
  },
);

describe('our acpremote mirror --unstable-protocol → the same server (the control)', () => {
  it('keeps the elicitation capability, so the form reaches the client and the agent gets its value', async () => {
    const { server, captureDirectory } = await startRecordedDeployTarget();
    const { mirror, peer } = spawnMirrorPeer(
      'acpremote mirror',
      server.url,
      ['--unstable-protocol', '--token-env', TOKEN_VARIABLE],
      { env: { [TOKEN_VARIABLE]: token } },
    );
    const session = await RawClientSession.open(peer, INITIALIZE_WITH_FORMS.clientCapabilities, EDITOR_CWD);

    const turn = await session.prompt('deploy please', acceptToken('choice_1'));

    expect(turn).toMatchObject({ text: 'Selected: production', stopReason: 'end_turn' });
    expect(turn.elicitations).toHaveLength(1);
    expect(forwarded(captureDirectory, 'initialize').clientCapabilities).toMatchObject({
      elicitation: { form: {} },
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
    expect(forwarded(captureDirectory, 'session/new')).toMatchObject({ cwd: await remoteCwdOf(server) });
    await closeMirror(mirror);
  });
});

describe.each(pythonMirrors)('%s against our acpremote expose with a token', (kind) => {
  it.each([
    ['a missing token', [] as string[], {}],
    ['a wrong token', ['--token-env', TOKEN_VARIABLE], { [TOKEN_VARIABLE]: `${token}-wrong` }],
  ])(
    'is refused on %s: initialize fails with the 401, and the mirror keeps running until stdin ends',
    async (_case, flags, env) => {
      const { server } = await startRecordedDeployTarget();
      const { mirror, peer } = spawnPythonMirror(kind, server.url, flags, env);

      const refusal = await requestError(peer, 'initialize', INITIALIZE_WITH_FORMS);
      // Relied on: Python's mirror connects lazily and turns the failed upgrade into -32603 with the details that
      // docs/remote-transport.md quotes.
      const details = quotedRefusal(interopPaths.remoteTransportDocs, 'Python', 'none');
      expect(refusal).toMatchObject({ code: -32603, data: { details } });
      // Still running and answering: every request retries the connection and fails the same way.
      const again = await requestError(peer, 'session/new', { cwd: process.cwd(), mcpServers: [] });
      expect(again).toMatchObject({ code: -32603, data: { details } });
      // Python does not exit on refusal; stdin EOF ends it with 0 (its stderr has the traceback).
      await closeMirror(mirror);
      expect(mirror.stderr()).toContain('HTTP 401');
    },
  );
});

async function requestError(peer: JsonRpcPeer, method: string, params: unknown): Promise<unknown> {
  const reply = await peer.request(method, method, params);
  if (reply.error === undefined)
    throw new Error(`${method} unexpectedly succeeded: ${JSON.stringify(reply)}`);
  return reply.error;
}
