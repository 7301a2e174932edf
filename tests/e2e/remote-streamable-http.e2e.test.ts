// ACP's Streamable HTTP through the built CLIs over real sockets: `acpremote expose` / `serve` announce the endpoint,
// `acpkit run --addr http://…` and `acpremote mirror http://…` relay an editor to it (the elicitation answered on
// stdio), `--transport` forces one transport, refusals say what to do, and `--allowed-origin` turns CORS on.
// One `acpremote expose` (with a token) serves the file.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptChoiceTitled, connectTestClient, processStream, runPromptTurn } from './support/acp-client.js';
import { runMirrorTurn } from './support/mirror-turn.js';
import { deployTarget } from './support/paths.js';
import { reapAll, runCliToExit } from './support/processes.js';
import {
  type MirrorCli,
  type RunningServer,
  spawnMirror,
  startExpose,
  startServe,
} from './support/remote-servers.js';

const TOKEN_VARIABLE = 'ACPKIT_E2E_TOKEN';
const token = 'e2e-streamable-http-token';
const tokenEnv = { [TOKEN_VARIABLE]: token };
let server: RunningServer;
/** `http://127.0.0.1:PORT/acp`, read from the banner. */
let endpoint: string;

beforeAll(async () => {
  server = await startExpose(
    [process.execPath, deployTarget.directory],
    ['--token-env', TOKEN_VARIABLE, '--allowed-origin', 'https://app.example'],
    { env: tokenEnv },
  );
  const banner = await server.process.waitForStderr(
    /Serving ACP Streamable HTTP at (http:\/\/\S+) \(and the RFD WebSocket at (ws:\/\/\S+)\)\n/,
  );
  endpoint = banner[1] as string;
  expect(banner[2]).toBe(endpoint.replace(/^http/, 'ws'));
});

afterAll(async () => {
  await reapAll();
});

describe.each([
  ['acpkit run --addr', 'http', 'Production'],
  ['acpremote mirror', 'http', 'Preview'],
  ['acpremote mirror', 'http --transport websocket', 'Production'],
] as Array<[MirrorCli, string, string]>)(
  '%s %s://…/acp → acpremote expose -- node examples/deploy-target',
  (mirrorCli, how, title) => {
    it('relays the elicitation to the editor on stdio and the answer back to the agent', async () => {
      const flags = [
        '--token-env',
        TOKEN_VARIABLE,
        ...(how.includes('--transport') ? ['--transport', 'websocket'] : []),
      ];
      const run = await runMirrorTurn(mirrorCli, endpoint, acceptChoiceTitled(title), {
        flags,
        spawn: { env: tokenEnv },
      });

      expect(run.turn).toMatchObject({ stopReason: 'end_turn', text: `Selected: ${title.toLowerCase()}` });
      expect(run.exit).toEqual({ code: 0, signal: null });
    });
  },
);

describe('refusals through the CLIs', () => {
  it('acpremote mirror http://… with the wrong token exits 1 naming where the token came from', async () => {
    const run = await runCliToExit('acpremote', ['mirror', endpoint, '--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: 'wrong' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: the server at ${endpoint} refused the bearer token from --token-env ${TOKEN_VARIABLE} (HTTP 401): ${TOKEN_VARIABLE} does not hold the server's token.\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('acpkit run --addr ws://…/acp/ws --transport http names the endpoint to use (HTTP 404)', async () => {
    const run = await runCliToExit(
      'acpkit',
      ['run', '--addr', server.url, '--transport', 'http', '--token-env', TOKEN_VARIABLE],
      {
        env: tokenEnv,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /has no ACP Streamable HTTP endpoint at \/acp\/ws \(HTTP 404\); the endpoint is usually \/acp/,
    );
  });
});

describe('CORS with --allowed-origin', () => {
  function preflight(origin: string): Promise<{ status: number; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const outgoing = request(endpoint, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
      outgoing.on('response', (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, headers: response.headers });
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  it('answers the preflight of the allowed origin, and refuses another one', async () => {
    const allowed = await preflight('https://app.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST, DELETE',
    });
    const other = await preflight('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('acpremote serve', () => {
  it('serves an in-process app over Streamable HTTP too: acpremote mirror http://… reaches it', async () => {
    const served = await startServe(deployTarget.module);
    const banner = await served.process.waitForStderr(/Serving ACP Streamable HTTP at (http:\/\/\S+) /);
    const mirror = spawnMirror('acpremote mirror', banner[1] as string);
    const client = connectTestClient(processStream(mirror), acceptChoiceTitled('Preview'));
    expect((await runPromptTurn(client, 'deploy')).text).toBe('Selected: preview');
    mirror.child.stdin?.end();
    expect((await mirror.exited).code).toBe(0);
  });
});
