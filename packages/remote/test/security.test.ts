import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteError,
  AcpRemoteErrorCode,
  connectAcp,
  type RemoteServer,
  type ServeOptions,
  serveCommand,
} from '../src/index.js';
import { Cleanup, ECHO_AGENT, RawClient, rawRequest, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const TOKEN = 'correct-horse-battery-staple';

async function start(options: ServeOptions = {}): Promise<RemoteServer> {
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    logger: recordingLogger().logger,
    ...options,
  });
  cleanup.add(() => server.close());
  return server;
}

function hostHeader(server: RemoteServer): Record<string, string> {
  return { Host: `127.0.0.1:${server.port}` };
}

async function errorCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    const value = await promise;
    if (value && typeof (value as RemoteServer).close === 'function') await (value as RemoteServer).close();
    return undefined;
  } catch (error) {
    return AcpRemoteError.isInstance(error) ? error.code : String(error);
  }
}

describe('HTTP routes', () => {
  it('serves /healthz and the metadata JSON, and 404 elsewhere', async () => {
    const server = await start({ bearerToken: TOKEN });
    const health = await rawRequest(server.port, '/healthz', hostHeader(server));
    expect(health).toMatchObject({ status: 200, body: 'ok\n' });
    const metadata = await rawRequest(server.port, '/acp?probe=1', {
      ...hostHeader(server),
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(metadata.status).toBe(200);
    expect(metadata.headers['content-type']).toBe('application/json');
    const document = JSON.parse(metadata.body);
    expect(document).toMatchObject({
      auth_required: true,
      supported_auth_modes: ['bearer'],
      websocket_path: '/acp/ws',
    });
    expect(metadata.body).not.toContain(TOKEN);
    expect(metadata.body).not.toContain(ECHO_AGENT);
    const missing = await rawRequest(server.port, '/elsewhere', {
      ...hostHeader(server),
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(missing).toMatchObject({ status: 404, body: 'not found\n' });
  });

  it('normalises the mount path for every route', async () => {
    const server = await start({ mountPath: 'remote/agent/' });
    expect(server.url).toBe(`ws://127.0.0.1:${server.port}/remote/agent/ws`);
    expect((await rawRequest(server.port, '/remote/agent', hostHeader(server))).status).toBe(200);
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
  });

  it('accepts the upgrade on the mount path itself (the RFD WebSocket: initialize first)', async () => {
    const server = await start();
    const raw = await RawClient.open(`ws://127.0.0.1:${server.port}/acp`);
    cleanup.add(() => raw.close());
    raw.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    expect((await raw.response(0)).result.protocolVersion).toBe(1);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_vendor/ping', params: {} });
    expect((await raw.response(1)).result.echo.method).toBe('_vendor/ping');
  });
});

describe('bearer token', () => {
  it('answers 401 with a Bearer challenge before the upgrade when the token is missing or wrong', async () => {
    const server = await start({ bearerToken: TOKEN });
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer wrong' },
      { Authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const response = await rawRequest(
        server.port,
        '/acp/ws',
        { ...hostHeader(server), ...headers },
        { upgrade: true },
      );
      expect(response.upgraded).toBe(false);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="acpremote"');
    }
    expect(server.connectionCount).toBe(0);
  });

  it('protects the metadata route (it names the remote cwd) but not /healthz', async () => {
    const server = await start({ bearerToken: TOKEN });
    expect((await rawRequest(server.port, '/acp', hostHeader(server))).status).toBe(401);
    expect((await rawRequest(server.port, '/healthz', hostHeader(server))).status).toBe(200);
  });

  it('answers 404, not 401, for a wrong path even with a valid token', async () => {
    const server = await start({ bearerToken: TOKEN });
    const response = await rawRequest(
      server.port,
      '/nope/ws',
      { ...hostHeader(server), Authorization: `Bearer ${TOKEN}` },
      { upgrade: true },
    );
    expect(response.status).toBe(404);
  });

  it('lets connectAcp in with the token and rejects it without one', async () => {
    const server = await start({ bearerToken: TOKEN });
    const remote = await connectAcp(server.url, { bearerToken: TOKEN });
    cleanup.add(() => remote.close());
    expect(remote.metadata?.auth_required).toBe(true);
    expect(await errorCodeOf(connectAcp(server.url))).toBe(AcpRemoteErrorCode.AuthenticationFailed);
  });
});

describe('Origin and Host', () => {
  it('answers 403 to a present Origin that is not allowed, on every route', async () => {
    const server = await start({ allowedOrigins: ['https://editor.example'] });
    const evil = { ...hostHeader(server), Origin: 'https://evil.example' };
    expect((await rawRequest(server.port, '/acp/ws', evil, { upgrade: true })).status).toBe(403);
    expect((await rawRequest(server.port, '/healthz', evil)).status).toBe(403);
    expect((await rawRequest(server.port, '/acp', evil)).status).toBe(403);
    const allowed = await rawRequest(
      server.port,
      '/acp/ws',
      { ...hostHeader(server), Origin: 'https://editor.example' },
      { upgrade: true },
    );
    expect(allowed).toMatchObject({ status: 101, upgraded: true });
  });

  it('answers 403 to a Host other than loopback names or allowedHosts when bound to loopback', async () => {
    const server = await start({ allowedHosts: ['devbox.internal'] });
    const rebinding = { Host: `attacker.example:${server.port}` };
    expect((await rawRequest(server.port, '/acp/ws', rebinding, { upgrade: true })).status).toBe(403);
    expect((await rawRequest(server.port, '/healthz', rebinding)).status).toBe(403);
    expect((await rawRequest(server.port, '/acp', rebinding)).status).toBe(403);
    for (const host of ['localhost', `[::1]:${server.port}`, 'devbox.internal:1']) {
      expect((await rawRequest(server.port, '/healthz', { Host: host })).status).toBe(200);
    }
  });

  it('answers 400 to malformed Host or Origin headers and to garbage requests, and keeps serving', async () => {
    const server = await start();
    expect((await rawRequest(server.port, '/healthz', { Host: 'bad host' })).status).toBe(400);
    expect((await rawRequest(server.port, '/acp/ws', { Host: '[::1' }, { upgrade: true })).status).toBe(400);
    expect(
      (await rawRequest(server.port, '/healthz', { ...hostHeader(server), Origin: '::garbage::' })).status,
    ).toBe(400);
    const garbage = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
    expect((await rawRequest(server.port, '/healthz', hostHeader(server))).status).toBe(200);
  });
});

describe('connection limits and binding', () => {
  it('answers 503 at upgrade once maxConnections sockets are open', async () => {
    const server = await start({ maxConnections: 1 });
    const first = await RawClient.open(server.url);
    cleanup.add(() => first.close());
    const refused = await rawRequest(server.port, '/acp/ws', hostHeader(server), { upgrade: true });
    expect(refused.status).toBe(503);
  });

  it('refuses to bind a non-loopback host without a token unless allowUnauthenticated', async () => {
    expect(await errorCodeOf(start({ host: '0.0.0.0' }))).toBe(AcpRemoteErrorCode.UnauthenticatedPublicBind);
    const withToken = await start({ host: '0.0.0.0', bearerToken: TOKEN });
    expect(withToken.url).toBe(`ws://0.0.0.0:${withToken.port}/acp/ws`);
    const dangerous = await start({ host: '0.0.0.0', allowUnauthenticated: true });
    // Bound publicly, the Host allow-list no longer applies.
    expect((await rawRequest(dangerous.port, '/healthz', { Host: 'agent.example' })).status).toBe(200);
  });

  it('treats a blank token as an error, not as "auth off"', async () => {
    expect(await errorCodeOf(start({ bearerToken: '  ' }))).toBe(AcpRemoteErrorCode.InvalidOption);
    expect(await errorCodeOf(start({ allowedOrigins: ['not an origin'] }))).toBe(
      AcpRemoteErrorCode.InvalidOption,
    );
    expect(await errorCodeOf(start({ allowedHosts: ['bad host name'] }))).toBe(
      AcpRemoteErrorCode.InvalidOption,
    );
  });

  it('reports LISTEN_FAILED when the port is taken', async () => {
    const server = await start();
    expect(await errorCodeOf(start({ port: server.port }))).toBe(AcpRemoteErrorCode.ListenFailed);
  });
});
