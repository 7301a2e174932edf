// The plain HTTP side of the servers against a flood of idle TCP connections: the cap (maxHttpConnections) closes
// the oldest idle ones so /healthz stays reachable, and a connection that sends nothing is closed by the server
// (explicit header timeout) instead of living 60-90 s on Node's defaults.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveCommand } from '../src/index.js';
import { Cleanup, ECHO_AGENT, rawRequest, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

function idleSocket(port: number): { socket: Socket; closed: Promise<void>; connected: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  cleanup.add(() => socket.destroy());
  return {
    socket,
    connected: new Promise((resolve) => socket.once('connect', () => resolve())),
    closed: new Promise((resolve) => socket.once('close', () => resolve())),
  };
}

describe('maxHttpConnections', () => {
  it('closes the oldest idle connections at the cap and keeps answering /healthz', async () => {
    const { logger, entries } = recordingLogger();
    const server = await serveCommand(['node', ECHO_AGENT], { port: 0, maxHttpConnections: 4, logger });
    cleanup.add(() => server.close());
    const sockets = Array.from({ length: 10 }, () => idleSocket(server.port));
    await Promise.all(sockets.map((entry) => entry.connected));
    // The six oldest make room for the newer ones, in order.
    await Promise.all(sockets.slice(0, 6).map((entry) => entry.closed));
    const health = await rawRequest(server.port, '/healthz', {});
    expect(health).toMatchObject({ status: 200, body: 'ok\n' });
    expect(sockets.slice(6).map((entry) => entry.socket.destroyed)).toEqual([true, false, false, false]);
    expect(entries.filter((entry) => entry.message === 'idle connection closed to make room')).toHaveLength(
      7,
    );
    expect(entries.find((entry) => entry.message === 'idle connection closed to make room')?.fields).toEqual({
      reason: 'limit',
      remoteAddress: '127.0.0.1',
      maxHttpConnections: 4,
    });
  });
});

describe('HTTP timeouts', () => {
  it('closes a connection that never sends a request head (408 after the header timeout)', async () => {
    const { logger, waitFor } = recordingLogger();
    const server = await serveCommand(['node', ECHO_AGENT], { port: 0, logger });
    cleanup.add(() => server.close());
    const silent = idleSocket(server.port);
    let answer = '';
    silent.socket.setEncoding('latin1').on('data', (chunk: string) => {
      answer += chunk;
    });
    await silent.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect((await waitFor(/^request refused$/)).fields).toMatchObject({ reason: 'timeout', status: 408 });
  }, 30_000);
});
