// Drain over real sockets: a draining server refuses new upgrades with 503 + Retry-After and answers /readyz 503
// (/healthz stays 200) while open connections keep working until they end or the grace runs out (then 1001).
import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteErrorCode,
  CloseCode,
  RemoteProtocol,
  type RemoteServer,
  serveAcp,
  serveCommand,
} from '../src/index.js';
import {
  Cleanup,
  ECHO_AGENT,
  processExists,
  RawClient,
  rawRequest,
  recordingLogger,
} from './support/helpers.js';

const TOKEN = 'drain-test-token';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function startEcho() {
  const recorder = recordingLogger();
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    bearerToken: TOKEN,
    logger: recorder.logger,
  });
  cleanup.add(() => server.close());
  return { server, ...recorder };
}

async function openClient(server: RemoteServer) {
  const raw = await RawClient.open(server.url, AUTH);
  cleanup.add(() => raw.close());
  return raw;
}

/** A request the echo agent answers with its pid: proves the connection (and its agent) still works. */
async function agentPid(raw: RawClient, id: number): Promise<number> {
  raw.send({ jsonrpc: '2.0', id, method: '_vendor/pid', params: {} });
  return (await raw.response(id)).result.pid;
}

describe('RemoteServer.drain', () => {
  it('refuses new upgrades with 503 + Retry-After and /readyz 503, while an open connection keeps working', async () => {
    const { server, waitFor } = await startEcho();
    expect((await rawRequest(server.port, '/readyz', {})).status).toBe(200);
    const raw = await openClient(server);
    const pid = await agentPid(raw, 1);

    expect(server.draining).toBe(false);
    const drained = server.drain({ graceMs: 60_000 });
    expect(server.draining).toBe(true);

    const refused = await rawRequest(server.port, '/acp/ws', AUTH, { upgrade: true });
    expect(refused).toMatchObject({ status: 503, upgraded: false });
    expect(refused.headers['retry-after']).toBe(String(RemoteProtocol.drainRetryAfterSeconds));
    expect(refused.body).toContain('draining');
    const logged = await waitFor(/^connection refused$/);
    expect(logged.fields).toMatchObject({ reason: 'draining', status: 503, path: '/acp/ws' });
    // A wrong token still gets 401: only an authorised client learns that this instance drains.
    const unauthorised = await rawRequest(server.port, '/acp/ws', {}, { upgrade: true });
    expect(unauthorised.status).toBe(401);

    const readiness = await rawRequest(server.port, '/readyz', {});
    expect(readiness).toMatchObject({ status: 503, body: 'draining\n' });
    expect((await rawRequest(server.port, '/readyz', {}, { method: 'HEAD' })).status).toBe(503);
    expect(await rawRequest(server.port, '/healthz', {})).toMatchObject({ status: 200, body: 'ok\n' });
    // Host and Origin rules hold for the readiness route too.
    expect((await rawRequest(server.port, '/readyz', { Host: 'evil.example' })).status).toBe(403);

    // The open connection and its agent go on; when the client ends it, the drain is complete.
    expect(await agentPid(raw, 2)).toBe(pid);
    expect((await waitFor(/^drain started$/)).fields).toMatchObject({ connections: 1, graceMs: 60_000 });
    raw.close();
    expect(await drained).toEqual({ endedWithinGrace: true, closedConnections: 0 });
    expect(processExists(pid)).toBe(false);
    expect(server.connectionCount).toBe(0);
    await waitFor(/^drain finished/);
    // Routes answer until close(), then the port is released.
    expect((await rawRequest(server.port, '/healthz', {})).status).toBe(200);
    await server.close();
    await expect(rawRequest(server.port, '/healthz', {})).rejects.toThrow();
  });

  it('closes the connections left when the grace runs out with 1001 and a reason, and reaps their agents', async () => {
    const { server, waitFor } = await startEcho();
    const raw = await openClient(server);
    const pid = await agentPid(raw, 1);
    const result = await server.drain({ graceMs: 50 });
    expect(result).toEqual({ endedWithinGrace: false, closedConnections: 1 });
    expect(await raw.closed).toEqual({
      code: CloseCode.GoingAway,
      reason: 'server shutting down: drain grace period ended',
    });
    expect(processExists(pid)).toBe(false);
    expect((await waitFor(/^drain grace period ended/)).fields).toMatchObject({
      connections: 1,
      graceMs: 50,
    });
  });

  it('is idempotent, ends at once with no connection, and rejects a bad graceMs', async () => {
    const { server } = await startEcho();
    await expect(server.drain({ graceMs: -1 })).rejects.toMatchObject({
      code: AcpRemoteErrorCode.InvalidOption,
      message:
        'graceMs must be a non-negative integer number of milliseconds up to 2147483647 (0 closes open connections at once), got -1',
    });
    expect(server.draining).toBe(false);
    const [first, second] = await Promise.all([
      server.drain({ graceMs: 0 }),
      server.drain({ graceMs: 99_999 }),
    ]);
    expect(first).toEqual({ endedWithinGrace: true, closedConnections: 0 });
    expect(second).toBe(first);
  });

  it('is cut short by close(): the rest close with 1001 at once', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    await agentPid(raw, 1);
    const drained = server.drain({ graceMs: 60_000 });
    await server.close();
    expect(await drained).toEqual({ endedWithinGrace: false, closedConnections: 1 });
    expect(await raw.closed).toEqual({ code: CloseCode.GoingAway, reason: 'server shutting down' });
  });

  it('close({ graceMs }) drains first, then stops listening', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    const pid = await agentPid(raw, 1);
    const closed = server.close({ graceMs: 60_000 });
    // Still serving the open connection while the drain waits for it.
    expect(await agentPid(raw, 2)).toBe(pid);
    raw.close();
    await closed;
    expect(processExists(pid)).toBe(false);
    await expect(rawRequest(server.port, '/healthz', {})).rejects.toThrow();
  });

  it('drains serveAcp: an in-process session finishes its turn while new connections are refused', async () => {
    let releaseTurn: () => void = () => {};
    const turnHeld = new Promise<void>((resolve) => {
      releaseTurn = resolve;
    });
    const server = await serveAcp(
      () =>
        agent({ name: 'drain-agent' })
          .onRequest(methods.agent.initialize, () => ({
            protocolVersion: PROTOCOL_VERSION,
            agentCapabilities: {},
          }))
          .onRequest(methods.agent.session.prompt, async () => {
            await turnHeld;
            return { stopReason: 'end_turn' as const };
          }),
      { port: 0, logger: recordingLogger().logger },
    );
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION } });
    await raw.response(1);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    const drained = server.drain({ graceMs: 60_000 });
    expect((await rawRequest(server.port, '/acp/ws', {}, { upgrade: true })).status).toBe(503);
    releaseTurn();
    expect((await raw.response(2)).result).toEqual({ stopReason: 'end_turn' });
    raw.close();
    expect(await drained).toEqual({ endedWithinGrace: true, closedConnections: 0 });
  });
});
