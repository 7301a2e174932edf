// Hostile clients of the Streamable HTTP endpoint (issue 27), against the built `acpremote expose` over real sockets:
// readers that never read and take each other's stream over, slow POST bodies, events kept for `Last-Event-ID`,
// and requests the agent never answers.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  httpExchange,
  initializeConnection,
  neverReadingStream,
  postMessage,
  rawRequest,
  readingStream,
} from './support/http-peer.js';
import {
  fixturePath,
  killStartedProcesses,
  openFileDescriptors,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const HOLD_AGENT = [process.execPath, fixturePath('hold-agent.mjs')];

/** `http://127.0.0.1:PORT/acp` of a server whose banner named `ws://127.0.0.1:PORT/acp/ws`. */
function endpointOf(server: RunningServer): string {
  return server.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
}

describe('the Streamable HTTP endpoint under hostile clients (issue 27)', () => {
  const servers: RunningServer[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('a stream taken over 120 times by readers that never read, then DELETEd, holds no server socket (defect 1)', async () => {
    const server = await startAcpremote(['expose', '--max-connections', '1', '--', ...HOLD_AGENT]);
    servers.push(server);
    const pid = server.child.pid!;
    const endpoint = endpointOf(server);
    const connectionId = await initializeConnection(endpoint);
    // 10 events of ~1 MiB, read: kept for Last-Event-ID.
    const reader = await readingStream(endpoint, connectionId);
    sockets.push(reader.socket);
    const pad = 'x'.repeat(1024 * 1024 - 100);
    for (let id = 1; id <= 10; id += 1)
      expect(await postMessage(endpoint, connectionId, { id, method: '_test/echo', params: { pad } })).toBe(
        202,
      );
    await waitFor(
      () => reader.bytes() >= 10 * (1024 * 1024 - 100),
      30_000,
      () => `read ${reader.bytes()} bytes`,
    );
    reader.socket.destroy();
    // The reader's socket is gone once the server has one socket fewer than with it; the agent's pipes stay.
    const withReader = openFileDescriptors(pid);
    await waitFor(
      () => openFileDescriptors(pid) < withReader,
      10_000,
      () => `descriptors ${openFileDescriptors(pid)}`,
    );
    const baseline = openFileDescriptors(pid);
    // Each GET replays the 10 MiB from event 1 and takes the stream over from the previous one, which never read.
    for (let index = 0; index < 120; index += 1)
      sockets.push(await neverReadingStream(endpoint, connectionId, 0));
    await waitFor(
      () => openFileDescriptors(pid) <= baseline + 4,
      10_000,
      () => `the server holds ${openFileDescriptors(pid)} descriptors, ${baseline} before the 120 readers`,
    );
    const deleted = await httpExchange(endpoint, {
      method: 'DELETE',
      headers: { 'Acp-Connection-Id': connectionId },
    });
    expect(deleted.status).toBe(202);
    // The last reader gets the closing comment; it reads nothing, so its response is destroyed within the bound.
    await waitFor(
      () => openFileDescriptors(pid) < baseline,
      20_000,
      () =>
        `the server holds ${openFileDescriptors(pid)} descriptors after DELETE, ${baseline} before the readers`,
    );
    // The server answers as before.
    expect((await httpExchange(endpoint.replace(/\/acp$/, '/healthz'), { method: 'GET' })).status).toBe(200);
    expect(await initializeConnection(endpoint)).toMatch(/^[0-9a-f-]{36}$/);
  }, 90_000);

  it('80 slow POST bodies that reopen at once lock out neither /healthz, /readyz nor a legitimate initialize (defect 2)', async () => {
    const server = await startAcpremote(['expose', '--', ...HOLD_AGENT]);
    servers.push(server);
    const pid = server.child.pid!;
    const endpoint = endpointOf(server);
    const origin = endpoint.replace(/\/acp$/, '');
    const baseline = openFileDescriptors(pid);
    let attacking = true;
    const open = new Set<Socket>();
    let opened = 0;
    const attack = async (): Promise<void> => {
      if (!attacking) return;
      const socket = await rawRequest(
        endpoint,
        ['POST /acp HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 100000'].join('\r\n'),
        '{',
      );
      open.add(socket);
      opened += 1;
      socket.resume();
      // Reopened at once when the server closes it (an attacker that does not give up).
      socket.once('close', () => {
        open.delete(socket);
        void attack();
      });
    };
    await Promise.all(Array.from({ length: 80 }, () => attack()));
    // One byte a second on each: far below any sensible body rate, far above the 10 s head timeout's reach.
    const dribble = setInterval(() => {
      for (const socket of open) if (!socket.destroyed) socket.write(' ');
    }, 1_000);
    try {
      // The attack is on: every socket opened, and the server holds at least a client's share of them.
      await waitFor(
        () => opened >= 80 && openFileDescriptors(pid) >= baseline + 16,
        10_000,
        () =>
          `${opened} opened; the server holds ${openFileDescriptors(pid)} descriptors, ${baseline} before`,
      );
      for (let round = 0; round < 3; round += 1) {
        const health = await httpExchange(`${origin}/healthz`, { method: 'GET', timeoutMs: 5_000 });
        expect(health.status).toBe(200);
        const ready = await httpExchange(`${origin}/readyz`, { method: 'GET', timeoutMs: 5_000 });
        expect(ready.status).toBe(200);
        expect(await initializeConnection(endpoint)).toMatch(/^[0-9a-f-]{36}$/);
      }
    } finally {
      attacking = false;
      clearInterval(dribble);
    }
    // However many it opened, the attacker held no more than its share of the cap.
    const held = openFileDescriptors(pid) - baseline;
    for (const socket of open) socket.destroy();
    expect(held).toBeLessThan(64);
  }, 90_000);
});
