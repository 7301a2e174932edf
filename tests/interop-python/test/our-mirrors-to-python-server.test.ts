// Transport interop, our side in front: our `acpkit run --addr` and `acpremote mirror` (built CLIs, with
// `--unstable-protocol`) → WebSocket → Python `acpremote expose` (1.10, token required) → a pydantic-acp agent that
// calls `ask_choice` → back through both relays to a form-answering raw JSON-RPC client. The Python agent must get
// its typed value, the form must reach the client exactly as Python sent it, and a missing or wrong token must make
// our mirror exit 1 with a clear message before it writes anything to stdout.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapAll, spawnCli } from '../../e2e/support/processes.js';
import {
  type MirrorCli,
  mirrorArguments,
  type RunningServer,
  spawnMirrorPeer,
} from '../../e2e/support/remote-servers.js';
import { type PythonVectors, readPythonVectors } from '../src/captures.js';
import { RawClientSession, withoutSessionId } from '../src/choice-agents.js';
import { acceptToken, formCases } from '../src/choice-cases.js';
import { quotedRefusal } from '../src/compatibility-tables.js';
import { interopPaths } from '../src/paths.js';
import { startPythonExpose } from '../src/remote-processes.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

const pythonReady = failEveryTestWithoutPythonVenv();

const TOKEN_VARIABLE = 'ACPKIT_INTEROP_TOKEN';
const token = randomBytes(16).toString('hex');
const ourMirrors: MirrorCli[] = ['acpkit run --addr', 'acpremote mirror'];

let server: RunningServer;
let vectors: PythonVectors;

beforeAll(async () => {
  if (!pythonReady) return;
  vectors = readPythonVectors();
  server = await startPythonExpose(['--token-env', TOKEN_VARIABLE], { [TOKEN_VARIABLE]: token });
});

afterAll(async () => {
  await reapAll();
});

describe.each(ourMirrors)(
  'our %s --unstable-protocol → Python acpremote expose → ask_choice',
  (mirrorCli) => {
    it('relays the form unchanged and the answers back: the Python agent gets its typed values', async () => {
      const { mirror, peer } = spawnMirrorPeer(
        mirrorCli,
        server.url,
        ['--unstable-protocol', '--token-env', TOKEN_VARIABLE],
        { env: { [TOKEN_VARIABLE]: token } },
      );
      const session = await RawClientSession.open(peer);

      const deploy = await session.ask(
        formCases['deploy-targets'] as (typeof formCases)[string],
        acceptToken('choice_1'),
      );
      expect(deploy.outcome).toEqual({ outcome: 'accepted', value: 'production' });
      expect(deploy.elicitations).toHaveLength(1);
      expect(withoutSessionId(deploy.elicitations[0] as Record<string, unknown>, session.sessionId)).toEqual(
        vectors.forms['deploy-targets']?.params,
      );

      const objects = formCases['object-values'] as (typeof formCases)[string];
      expect((await session.ask(objects, acceptToken('choice_0'))).outcome).toEqual({
        outcome: 'accepted',
        value: objects.choices[0]?.value,
      });
      expect((await session.ask(objects, { result: { action: 'decline' } })).outcome).toEqual({
        outcome: 'declined',
      });
      expect((await session.ask(objects, { result: { action: 'cancel' } })).outcome).toEqual({
        outcome: 'cancelled',
      });

      mirror.child.stdin?.end();
      expect(await mirror.exited).toEqual({ code: 0, signal: null });
    });
  },
);

describe.each(ourMirrors)('our %s against Python acpremote expose with a token', (mirrorCli) => {
  it.each([
    ['none', [], {}],
    ['wrong', ['--token-env', TOKEN_VARIABLE], { [TOKEN_VARIABLE]: `${token}-wrong` }],
  ] as const)(
    'exits 1 with the message docs/remote-transport.md quotes, token: %s, writing nothing to stdout',
    async (tokenCase, flags, env) => {
      const cli = mirrorCli === 'acpremote mirror' ? 'acpremote' : 'acpkit';
      // stdin stays open: the refusal alone must end the mirror.
      const mirror = spawnCli(cli, mirrorArguments(mirrorCli, server.url, [...flags]), { env });
      const exit = await mirror.closed;
      expect(exit.code).toBe(1);
      // The whole message the docs quote, so a changed message fails here until the docs say it too.
      const quoted = quotedRefusal(interopPaths.remoteTransportDocs, 'ours', tokenCase, {
        url: server.url,
        variable: TOKEN_VARIABLE,
      });
      expect(mirror.stderr()).toContain(`${quoted}\n`);
      expect(mirror.stdout()).toBe('');
    },
  );
});
