// Every security rule of the servers, checked against the built `acpremote` over real sockets: bearer auth before
// the upgrade (401), Origin (403), Host / DNS rebinding (403), unknown routes (404), malformed headers (400),
// binary frames (1003), invalid UTF-8 (1007), oversized messages (1009), the connection cap (503), and the refusal to bind a
// non-loopback host without a token (before binding). Tokens compare in constant time (SHA-256 digests through
// crypto.timingSafeEqual in packages/remote/src/server/admission.ts: reviewed, not timed).
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { RelayErrorCode } from '@acpkit/remote';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS, webSocketPeer } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import { reapAll, runCliToExit, trackDescendantGroups } from './support/processes.js';
import { type RunningServer, startExpose } from './support/remote-servers.js';
import {
  closeAllWebSockets,
  closeOf,
  httpGet,
  openAcceptedWebSocket,
  openWebSocket,
} from './support/websocket.js';

const TOKEN = 'e2e-secret-token-0123456789';
const TOKEN_VARIABLE = 'ACPKIT_E2E_TOKEN';
const probeAgent = fixturePath('remote-probe-agent.js');
const authorized = { Authorization: `Bearer ${TOKEN}` };
const MAX_MESSAGE_BYTES = 4096;
const childDirectory = realpathSync(tmpdir());

let server: RunningServer;

beforeEach(async () => {
  server = await startExpose(
    [process.execPath, probeAgent],
    [
      '--token-env',
      TOKEN_VARIABLE,
      '--max-message-bytes',
      String(MAX_MESSAGE_BYTES),
      '--max-connections',
      '2',
      '--allowed-origin',
      'https://editor.example',
      '--allowed-host',
      'dev-box.internal',
      '--cwd',
      childDirectory,
      '--env',
      'ACPKIT_E2E_EXTRA=from-flag',
      '--env',
      'ACPKIT_E2E_EMPTY=',
      '--stderr',
      'discard',
    ],
    { env: { [TOKEN_VARIABLE]: TOKEN } },
  );
});

afterEach(async () => {
  closeAllWebSockets();
  await reapAll();
});

describe('the banner', () => {
  it('references the token variable and never prints the token', async () => {
    // The banner lines may arrive in separate chunks: wait for the mirror line itself.
    await server.process.waitForStderr(/Connect an editor with: .*\n/);
    const stderr = server.process.stderr();
    expect(stderr).toContain(
      `Connect an editor with: acpremote mirror ${server.url} --token-env ${TOKEN_VARIABLE}\n`,
    );
    expect(stderr).not.toContain(TOKEN);
  });
});

describe('bearer authentication (before the upgrade)', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { Authorization: 'Bearer not-the-token' }],
    ['a token prefix', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['another scheme', { Authorization: `Basic ${TOKEN}` }],
  ])('refuses the upgrade with 401 for %s', async (_case, headers) => {
    const outcome = await openWebSocket(server.url, headers);
    expect('refused' in outcome && outcome.refused.status).toBe(401);
    if ('refused' in outcome)
      expect(outcome.refused.headers['www-authenticate']).toBe('Bearer realm="acpremote"');
  });

  it('accepts the right token and relays to an agent that never sees the token', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const peer = webSocketPeer(socket);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    trackDescendantGroups(server.process.pid);
    const tokenSeen = await peer.request(1, '_vendor/environment', { name: TOKEN_VARIABLE });
    expect(tokenSeen.result).toEqual({ value: null, cwd: childDirectory });
    const extra = await peer.request(2, '_vendor/environment', { name: 'ACPKIT_E2E_EXTRA' });
    expect(extra.result).toMatchObject({ value: 'from-flag' });
    const empty = await peer.request(3, '_vendor/environment', { name: 'ACPKIT_E2E_EMPTY' });
    expect(empty.result).toMatchObject({ value: '' });
  });
});

describe('Origin and Host checks on every route', () => {
  const routes = [
    ['the WebSocket', (running: RunningServer) => running.url],
    ['/healthz', (running: RunningServer) => `${running.origin}/healthz`],
    ['the metadata route', (running: RunningServer) => `${running.origin}/acp`],
  ] as const;

  async function statusOf(url: string, headers: Record<string, string>): Promise<number> {
    if (url.startsWith('ws')) {
      const outcome = await openWebSocket(url, headers);
      return 'refused' in outcome ? outcome.refused.status : 101;
    }
    return (await httpGet(url, headers)).status;
  }

  it.each(routes)('%s answers 403 to a foreign Origin and accepts an allowed one', async (_route, urlOf) => {
    const url = urlOf(server);
    expect(await statusOf(url, { ...authorized, Origin: 'https://evil.example' })).toBe(403);
    expect(await statusOf(url, { ...authorized, Origin: 'https://editor.example' })).toBe(
      url.startsWith('ws') ? 101 : 200,
    );
  });

  it.each(routes)('%s answers 403 to a rebinding Host and accepts an allowed one', async (_route, urlOf) => {
    const url = urlOf(server);
    expect(await statusOf(url, { ...authorized, Host: `evil.example:${server.port}` })).toBe(403);
    expect(await statusOf(url, { ...authorized, Host: `dev-box.internal:${server.port}` })).toBe(
      url.startsWith('ws') ? 101 : 200,
    );
    expect(await statusOf(url, { ...authorized, Host: `localhost:${server.port}` })).toBe(
      url.startsWith('ws') ? 101 : 200,
    );
  });

  it.each(routes)(
    '%s answers 400 to a malformed Origin header instead of crashing',
    async (_route, urlOf) => {
      expect(await statusOf(urlOf(server), { ...authorized, Origin: 'not a url' })).toBe(400);
      expect((await httpGet(`${server.origin}/healthz`)).status).toBe(200);
    },
  );
});

describe('routes', () => {
  it('serves ok on /healthz', async () => {
    const health = await httpGet(`${server.origin}/healthz`);
    expect(health).toMatchObject({ status: 200, body: 'ok\n' });
  });

  it('serves metadata with the snake_case keys and no secret, command line or environment value', async () => {
    const metadata = await httpGet(`${server.origin}/acp`, authorized);
    expect(metadata.status).toBe(200);
    const body = JSON.parse(metadata.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      auth_required: true,
      supported_auth_modes: ['bearer'],
      websocket_path: '/acp/ws',
      metadata_path: '/acp',
      health_path: '/healthz',
      transport_kind: 'websocket',
      transport_version: 1,
      max_size: MAX_MESSAGE_BYTES,
      remote_cwd: childDirectory,
    });
    expect(metadata.body).not.toContain(TOKEN);
    expect(metadata.body).not.toContain('remote-probe-agent');
    expect(metadata.body).not.toContain('from-flag');
  });

  it('answers 404 to an unknown path, for GET and for an authenticated upgrade', async () => {
    expect((await httpGet(`${server.origin}/nope`, authorized)).status).toBe(404);
    const outcome = await openWebSocket(`ws://127.0.0.1:${server.port}/nope/ws`, authorized);
    expect('refused' in outcome && outcome.refused.status).toBe(404);
  });

  it('answers 503 to an upgrade over --max-connections', async () => {
    await openAcceptedWebSocket(server.url, authorized);
    await openAcceptedWebSocket(server.url, authorized);
    const outcome = await openWebSocket(server.url, authorized);
    expect('refused' in outcome && outcome.refused.status).toBe(503);
  });
});

describe('frames', () => {
  it('closes with 1003 on a binary frame', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const closed = closeOf(socket);
    socket.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize"}'), { binary: true });
    expect((await closed).code).toBe(1003);
  });

  it('closes with 1007 on a text frame that is not valid UTF-8', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const closed = closeOf(socket);
    socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await closed).code).toBe(1007);
  });

  it('answers an oversized request with a JSON-RPC error for its id and keeps the connection', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const peer = webSocketPeer(socket);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    trackDescendantGroups(server.process.pid);
    const oversized = await peer.request(77, '_vendor/ping', { padding: 'x'.repeat(MAX_MESSAGE_BYTES) });
    expect(oversized.error?.code).toBe(RelayErrorCode.MessageTooLarge);
    expect(await peer.request(78, '_vendor/ping', { nonce: 'still-open' })).toMatchObject({
      result: { pong: 'still-open' },
    });
  });

  it('closes with 1009 and a reason on an oversized notification (no id to answer)', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const closed = closeOf(socket);
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: '_vendor/notice',
        params: { padding: 'x'.repeat(MAX_MESSAGE_BYTES) },
      }),
    );
    const { code, reason } = await closed;
    expect(code).toBe(1009);
    expect(reason).toContain(String(MAX_MESSAGE_BYTES));
  });

  it('closes with 1009 on a payload so large the server does not read it', async () => {
    const socket = await openAcceptedWebSocket(server.url, authorized);
    const closed = closeOf(socket);
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: '_vendor/ping',
        params: { padding: 'x'.repeat(MAX_MESSAGE_BYTES * 3) },
      }),
    );
    const { code, reason } = await closed;
    expect(code).toBe(1009);
    expect(reason).toContain(String(MAX_MESSAGE_BYTES));
  });
});

describe('binding a non-loopback host', () => {
  it.each([
    ['serve', ['serve', `${probeAgent}:createProbeAgent`, '--host', '0.0.0.0', '--port', '0']],
    ['expose', ['expose', '--host', '0.0.0.0', '--port', '0', '--', process.execPath, probeAgent]],
  ])('%s refuses without a token, exits 2 and never binds', async (_command, args) => {
    const run = await runCliToExit('acpremote', args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^Error: .*(token|unauthenticated)/im);
    expect(run.stderr).not.toContain('Serving ACP WebSocket');
  });
});
