// ACP's standard remote transport (the RFD "Streamable HTTP & WebSocket Transport") against the Python ACP SDK
// 0.12.1 that Python ACP Kit 1.10 pins, both ways, each with an elicitation answered:
// - the SDK's own clients (`acp.http.create_http_stream`, `acp.ws.create_websocket_stream`, in python/rfd_client.py)
//   → our `acpremote expose -- node examples/deploy-target` at its endpoint `<mount>` (askChoice);
// - our mirrors (built CLIs) → the SDK's ASGI app under uvicorn (python/asgi_agent_server.py, an agent on the same
//   SDK asking one single choice per prompt), the elicitation answered by an SDK client on the mirror's stdio.
// One server of each kind serves the whole file, and one Python process runs both Python client turns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptChoiceTitled } from '../../e2e/support/acp-client.js';
import { runMirrorTurn } from '../../e2e/support/mirror-turn.js';
import { deployTarget } from '../../e2e/support/paths.js';
import { reapAll } from '../../e2e/support/processes.js';
import { type MirrorCli, type RunningServer, startExpose } from '../../e2e/support/remote-servers.js';
import {
  type PythonRfdTurn,
  type RunningPythonAsgiApp,
  runPythonRfdTurns,
  startPythonAsgiApp,
} from '../src/remote-processes.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

const pythonReady = failEveryTestWithoutPythonVenv();

let ours: RunningServer;
/** Our server's RFD endpoint: `http://127.0.0.1:PORT/acp`. */
let ourEndpoint: string;
let pythonApp: RunningPythonAsgiApp;
/** Both Python client turns, run by one Python process while the other tests run (its start-up is the slow part). */
let pythonClientTurns: Promise<PythonRfdTurn[]>;

beforeAll(async () => {
  if (!pythonReady) return;
  [ours, pythonApp] = await Promise.all([
    startExpose([process.execPath, deployTarget.directory]),
    startPythonAsgiApp(),
  ]);
  ourEndpoint = `${ours.origin}/acp`;
  pythonClientTurns = runPythonRfdTurns(
    [
      { transport: 'http', url: ourEndpoint },
      { transport: 'ws', url: ourEndpoint.replace(/^http/, 'ws') },
    ],
    'deploy',
    'Production',
  );
});

afterAll(async () => {
  await reapAll();
});

describe('Python SDK 0.12.1 clients → our acpremote expose -- node examples/deploy-target', () => {
  // The Python HTTP client POSTs its answer to elicitation/create without Acp-Session-Id: ours routes it by its id.
  it.each([
    ['create_http_stream(<endpoint>)', 0],
    ['create_websocket_stream(ws://…<endpoint>)', 1],
  ] as const)('%s answers the agent’s askChoice and gets its reply', async (_name, index) => {
    const turn = (await pythonClientTurns)[index];
    expect(turn).toEqual({
      forms: [expect.objectContaining({ message: 'Choose a deployment target' })],
      text: 'Selected: production',
      stopReason: 'end_turn',
    });
  });
});

const mirrors: Array<[MirrorCli, 'http' | 'ws', string]> = [
  ['acpremote mirror', 'http', 'Production'],
  ['acpkit run --addr', 'http', 'Preview'],
  ['acpremote mirror', 'ws', 'Preview'],
];

describe.each(mirrors)(
  'our %s %s://…/acp → the Python SDK’s ASGI app (uvicorn)',
  (mirrorCli, scheme, title) => {
    it('relays the elicitation to the editor on its stdio and the answer back to the agent', async () => {
      const url = scheme === 'http' ? pythonApp.endpoint : pythonApp.endpoint.replace(/^http/, 'ws');
      const run = await runMirrorTurn(mirrorCli, url, acceptChoiceTitled(title), {
        flags: ['--unstable-protocol'],
      });

      expect(run.turn).toMatchObject({ stopReason: 'end_turn', text: `Selected: ${title.toLowerCase()}` });
      expect(run.elicitations).toEqual([expect.objectContaining({ message: 'Choose a deployment target' })]);
      expect(run.exit).toEqual({ code: 0, signal: null });
    });
  },
);
