// Graceful drain of the built CLIs: SIGTERM → new upgrades get 503 + Retry-After, /readyz 503 (/healthz 200), the
// running session (a turn waiting on an elicitation answer) completes, exit 0; a session still open when
// --drain-timeout runs out is closed with 1001 and the exit code is 143; a second signal exits 143 at once. And
// --metrics on the built CLI.
import { afterEach, describe, expect, it } from 'vitest';
import { acceptChoiceTitled, connectTestClient, processStream, runPromptTurn } from './support/acp-client.js';
import { deployTarget, fixturePath } from './support/paths.js';
import { isAlive, reapAll, trackDescendantGroups, waitUntil } from './support/processes.js';
import { spawnMirror, startExpose, startServe } from './support/remote-servers.js';
import {
  closeAllWebSockets,
  closeOf,
  httpGet,
  openAcceptedWebSocket,
  openWebSocket,
} from './support/websocket.js';

const TOKEN = 'e2e-drain-token';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const TOKEN_ENV = { ACPREMOTE_E2E_TOKEN: TOKEN };
const probeAgent = fixturePath('remote-probe-agent.js');

afterEach(async () => {
  closeAllWebSockets();
  await reapAll();
});

/** An elicitation answerer that tells when the form arrived and answers only once released. */
function heldAnswer() {
  let release: () => void = () => {};
  let asked: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const formArrived = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const answer = acceptChoiceTitled('Production');
  return {
    formArrived,
    release,
    answerer: async (request: Parameters<typeof answer>[0]) => {
      asked();
      await released;
      return answer(request);
    },
  };
}

describe('acpremote expose on SIGTERM', () => {
  it('drains: refuses new sessions (503 + Retry-After, /readyz 503), lets the running turn finish, exits 0', async () => {
    const server = await startExpose(
      [process.execPath, deployTarget.directory],
      ['--token-env', 'ACPREMOTE_E2E_TOKEN'],
      { env: TOKEN_ENV },
    );
    expect((await httpGet(`${server.origin}/readyz`)).status).toBe(200);
    const mirror = spawnMirror('acpremote mirror', server.url, ['--token-env', 'ACPREMOTE_E2E_TOKEN'], {
      env: TOKEN_ENV,
    });
    const held = heldAnswer();
    const client = connectTestClient(processStream(mirror), held.answerer);
    const turn = runPromptTurn(client, 'deploy');
    await held.formArrived;
    const agentPids = trackDescendantGroups(server.process.pid);
    expect(agentPids.length).toBeGreaterThan(0);

    server.process.child.kill('SIGTERM');
    await server.process.waitForStderr(/Received SIGTERM; draining: .*up to 30 s for 1 open one/);
    const refused = await openWebSocket(server.url, AUTH);
    expect(refused).toMatchObject({ refused: { status: 503 } });
    if (!('refused' in refused)) throw new Error('the upgrade was accepted');
    expect(refused.refused.headers['retry-after']).toBe('1');
    await server.process.waitForStderr(/connection refused reason="draining" status=503/);
    expect(await httpGet(`${server.origin}/readyz`)).toMatchObject({ status: 503, body: 'draining\n' });
    expect(await httpGet(`${server.origin}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
    expect(server.process.child.exitCode).toBeNull();

    // The turn that was waiting on the user's answer completes through the draining server.
    held.release();
    expect(await turn).toMatchObject({ stopReason: 'end_turn', text: 'Selected: production' });
    mirror.child.stdin?.end();
    expect(await mirror.exited).toEqual({ code: 0, signal: null });
    expect(await server.process.exited).toEqual({ code: 0, signal: null });
    expect(agentPids.filter((pid) => isAlive(pid))).toEqual([]);
    expect(server.process.stderr()).toContain('Drained: every connection ended; stopped.');
    expect(server.process.stderr()).toMatch(/acpremote info: drain started connections=1 graceMs=30000\n/);
  });

  it('closes a session still open when --drain-timeout runs out with 1001, reaps its agent, exits 143', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--drain-timeout', '0.5']);
    const socket = await openAcceptedWebSocket(server.url);
    const closed = closeOf(socket);
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }),
    );
    await new Promise((resolve) => socket.once('message', resolve));
    const agentPids = trackDescendantGroups(server.process.pid);

    server.process.child.kill('SIGTERM');
    expect(await closed).toEqual({ code: 1001, reason: 'server shutting down: drain grace period ended' });
    expect(await server.process.exited).toEqual({ code: 143, signal: null });
    expect(agentPids.filter((pid) => isAlive(pid))).toEqual([]);
    expect(server.process.stderr()).toMatch(
      /drain grace period ended; closing the remaining connections connections=1/,
    );
  });

  it('exits 143 at once on a second signal during the drain, leaving no agent behind', async () => {
    const server = await startExpose([process.execPath, probeAgent]);
    const socket = await openAcceptedWebSocket(server.url);
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }),
    );
    await new Promise((resolve) => socket.once('message', resolve));
    const agentPids = trackDescendantGroups(server.process.pid);

    server.process.child.kill('SIGTERM');
    await server.process.waitForStderr(/draining/);
    server.process.child.kill('SIGTERM');
    expect(await server.process.exited).toEqual({ code: 143, signal: null });
    await server.process.waitForStderr(/Received SIGTERM again; exiting without waiting for the shutdown\./);
    await waitUntil(() => agentPids.every((pid) => !isAlive(pid)), 'the agent is gone');
  });
});

describe('acpremote serve and acpkit serve on SIGTERM', () => {
  it.each(['acpremote', 'acpkit'] as const)(
    '%s serve drains at once with no session and exits 0',
    async (cli) => {
      const server = await startServe(`${probeAgent}:createProbeAgent`, [], { cli });
      server.process.child.kill('SIGTERM');
      expect(await server.process.exited).toEqual({ code: 0, signal: null });
    },
  );
});

describe('--metrics', () => {
  it('serves /metrics behind the token, counting the sessions and refusals the server saw', async () => {
    const server = await startExpose(
      [process.execPath, probeAgent],
      ['--token-env', 'ACPREMOTE_E2E_TOKEN', '--metrics'],
      { env: TOKEN_ENV },
    );
    expect((await httpGet(`${server.origin}/metrics`)).status).toBe(401);
    expect(await openWebSocket(server.url)).toMatchObject({ refused: { status: 401 } });
    const socket = await openAcceptedWebSocket(server.url, AUTH);
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }),
    );
    await new Promise((resolve) => socket.once('message', resolve));

    const scrape = await httpGet(`${server.origin}/metrics`, AUTH);
    expect(scrape.status).toBe(200);
    expect(scrape.body).toContain(
      'acpremote_connections_total{outcome="accepted",transport="websocket"} 1\n',
    );
    expect(scrape.body).toContain('acpremote_connections_total{outcome="auth",transport="websocket"} 1\n');
    expect(scrape.body).toContain('acpremote_connections_open{transport="websocket"} 1\n');
    expect(scrape.body).toContain('acpremote_messages_total{direction="received",transport="websocket"} 1\n');
    expect(scrape.body).toContain('acpremote_messages_total{direction="sent",transport="websocket"} 1\n');
    expect(scrape.body).toContain('acpremote_child_processes_started_total 1\n');
    expect(server.process.stdout()).toBe('');
  });
});
