// What a client is told when it cannot connect, against real servers: one deadline for the metadata fetch and the
// open together, a missing vs a wrong token, a forbidden origin, a wrong path (with the server's real endpoint read
// from its metadata), and no URL credentials in any message or log line.
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpRemoteError, AcpRemoteErrorCode, connectAcp, serveCommand } from '../src/index.js';
import { Cleanup, ECHO_AGENT, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function failureOf(attempt: Promise<unknown>): Promise<AcpRemoteError & { cause?: unknown }> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AcpRemoteError.isInstance(error)) throw new Error(`expected an AcpRemoteError, got ${String(error)}`);
  return error;
}

async function tokenServer(options: { mountPath?: string } = {}) {
  const server = await serveCommand(['node', ECHO_AGENT], {
    port: 0,
    bearerToken: 'the-token',
    logger: recordingLogger().logger,
    ...options,
  });
  cleanup.add(() => server.close());
  return server;
}

describe('openTimeoutMs is one deadline for the metadata fetch and the open together', () => {
  it('gives up on a server that accepts TCP but never answers within the deadline, not twice it', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as { port: number };
    const openTimeoutMs = 1_500;
    const started = performance.now();
    const error = await failureOf(
      connectAcp(`ws://127.0.0.1:${port}/acp/ws`, { openTimeoutMs, logger: recordingLogger().logger }),
    );
    const elapsed = performance.now() - started;
    expect(error.code).toBe(AcpRemoteErrorCode.ConnectionFailed);
    expect(error.message).toBe(
      `cannot connect to ws://127.0.0.1:${port}/acp/ws: no connection within openTimeoutMs (1500 ms)`,
    );
    // Two steps each waiting the whole timeout would take at least 3000 ms.
    expect(elapsed).toBeGreaterThanOrEqual(openTimeoutMs - 5);
    expect(elapsed).toBeLessThan(2 * openTimeoutMs);
    // The metadata fetch used up the deadline, so no upgrade was attempted after it.
    expect(sockets.size).toBe(1);
  });
});

describe('a refused upgrade says what to do', () => {
  it('tells a missing token from a wrong one', async () => {
    const server = await tokenServer();
    const missing = await failureOf(connectAcp(server.url));
    expect(missing.code).toBe(AcpRemoteErrorCode.AuthenticationFailed);
    expect(missing.message).toBe(
      `the server at ${server.url} requires a bearer token (HTTP 401); set bearerToken`,
    );
    expect(missing.cause).toMatchObject({
      name: 'EndpointRefusal',
      transport: 'websocket',
      status: 401,
      credentialsSent: false,
    });
    const wrong = await failureOf(connectAcp(server.url, { bearerToken: 'not-it' }));
    expect(wrong.code).toBe(AcpRemoteErrorCode.AuthenticationFailed);
    expect(wrong.message).toBe(
      `the server at ${server.url} refused the bearer token (HTTP 401): it is not the server's token`,
    );
    expect(wrong.cause).toMatchObject({ status: 401, credentialsSent: true });
  });

  it('names the check behind a 403', async () => {
    const server = await tokenServer();
    const error = await failureOf(
      connectAcp(server.url, { bearerToken: 'the-token', headers: { Origin: 'https://evil.example' } }),
    );
    expect(error.code).toBe(AcpRemoteErrorCode.AuthenticationFailed);
    expect(error.message).toBe(
      `the server at ${server.url} refused the connection (HTTP 403: forbidden origin)`,
    );
  });

  it('after a 404, names the endpoint the server metadata gives', async () => {
    const server = await tokenServer();
    const origin = `ws://127.0.0.1:${server.port}`;
    const error = await failureOf(connectAcp(`${origin}/`, { bearerToken: 'the-token' }));
    expect(error.code).toBe(AcpRemoteErrorCode.ConnectionFailed);
    expect(error.message).toBe(
      `the server at ${origin} has no ACP WebSocket endpoint at / (HTTP 404); its endpoint is ${origin}/acp/ws`,
    );
  });

  it('after a 404, finds a custom mount above the path', async () => {
    const server = await tokenServer({ mountPath: '/tools/agent' });
    const origin = `ws://127.0.0.1:${server.port}`;
    const error = await failureOf(connectAcp(`${origin}/tools/agent/socket`, { bearerToken: 'the-token' }));
    expect(error.message).toBe(
      `the server at ${origin} has no ACP WebSocket endpoint at /tools/agent/socket (HTTP 404); its endpoint is ${origin}/tools/agent/ws`,
    );
  });

  it('after a 404 whose metadata it cannot read (no token), says where the endpoint usually is', async () => {
    const server = await tokenServer();
    const origin = `ws://127.0.0.1:${server.port}`;
    const error = await failureOf(connectAcp(`${origin}/wrong/path`));
    expect(error.message).toBe(
      `the server at ${origin} has no ACP WebSocket endpoint at /wrong/path (HTTP 404); the endpoint is usually /acp/ws, e.g. ${origin}/acp/ws`,
    );
  });
});

describe('an untrusted certificate', () => {
  it('says how to trust a private CA', async () => {
    const fixture = (name: string) =>
      readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));
    const server = await serveCommand(['node', ECHO_AGENT], {
      port: 0,
      tls: { key: fixture('tls-key.pem'), cert: fixture('tls-cert.pem') },
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    const error = await failureOf(connectAcp(server.url, { logger: recordingLogger().logger }));
    expect(error.code).toBe(AcpRemoteErrorCode.ConnectionFailed);
    expect(error.message).toBe(
      `cannot connect to ${server.url}: self-signed certificate; if the server's certificate comes from a private ` +
        'CA, trust that CA with the ca option or NODE_EXTRA_CA_CERTS',
    );
  });
});

describe('URL credentials never reach a message or a log line', () => {
  it('redacts userinfo and query values in errors', async () => {
    const server = await tokenServer();
    const url = `ws://user:hunter2@127.0.0.1:${server.port}/acp/ws?access_token=hunter3`;
    const error = await failureOf(connectAcp(url));
    expect(error.message).not.toMatch(/hunter/);
    expect(error.message).toContain(`ws://***@127.0.0.1:${server.port}/acp/ws?access_token=***`);
    const unreachable = await failureOf(connectAcp('ws://user:hunter2@127.0.0.1:1/acp/ws?k=hunter3'));
    expect(unreachable.message).toBe(
      'cannot connect to ws://***@127.0.0.1:1/acp/ws?k=***: connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});
