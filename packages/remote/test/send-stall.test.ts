// The stall timeout over real sockets: a server closes a client that reads nothing (and, with resume, one that
// acknowledges nothing: see peer-bounds.test.ts); a client closes a server that acknowledges nothing.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { connectAcp, serveCommand } from '../src/index.js';
import { RESUME_SUBPROTOCOL } from '../src/websocket/resume/resume-protocol.js';
import { Cleanup, RawClient, recordingLogger } from './support/helpers.js';

const FLOOD_WRITER = fileURLToPath(new URL('./fixtures/flood-writer.mjs', import.meta.url));

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('serveCommand send-stall timeout', () => {
  it('closes a connection whose client stops reading, with a logged reason, and reaps its agent', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, FLOOD_WRITER, '100000', String(64 * 1024)], {
      port: 0,
      logger: recorder.logger,
      // Heartbeats off, so only the stall guard can end the connection.
      pingIntervalMs: 0,
      stallTimeoutMs: 300,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    // The client stops reading: the server's send buffer fills and stops draining.
    raw.socket.pause();
    const stalled = await recorder.waitFor(/send stalled/);
    expect(stalled.level).toBe('warn');
    expect(stalled.fields?.stalledForMs).toBeGreaterThanOrEqual(300);
    await recorder.waitFor(/connection closed$/);
    expect(server.connectionCount).toBe(0);
    raw.socket.resume();
    const { code } = await raw.closed;
    // The close frame (1008) cannot pass data the client never read; a destroyed socket reads as 1006.
    expect([1006, 1008]).toContain(code);
  });

  it('leaves a client that keeps reading alone', async () => {
    const recorder = recordingLogger();
    const count = 64;
    const server = await serveCommand([process.execPath, FLOOD_WRITER, String(count), String(128 * 1024)], {
      port: 0,
      logger: recorder.logger,
      pingIntervalMs: 0,
      stallTimeoutMs: 300,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    const last = await raw.next(
      (message) => (message as { params?: { index?: number } }).params?.index === count - 1,
    );
    expect(last).toBeDefined();
    expect(recorder.entries.some((entry) => /send stalled/.test(entry.message))).toBe(false);
    expect(server.connectionCount).toBe(1);
  });

  it('refuses a negative stallTimeoutMs', async () => {
    await expect(serveCommand(['cat'], { port: 0, stallTimeoutMs: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
  });
});

describe('connectAcp stall timeout', () => {
  it('closes a connection whose server reads but acknowledges nothing, with a reason both sides see', async () => {
    // A server that speaks just enough of the resume wire to be resumable (its welcome), then never acknowledges.
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      handleProtocols: () => RESUME_SUBPROTOCOL,
    });
    cleanup.add(() => new Promise((resolve) => server.close(resolve)));
    await once(server, 'listening');
    const peers: WebSocket[] = [];
    server.on('connection', (socket) => {
      peers.push(socket);
      const welcome = { type: 'welcome', token: 'x'.repeat(43), resumed: false, received: 0 };
      socket.send(Buffer.from(JSON.stringify({ ...welcome, windowMs: 60_000, bufferBytes: 1024 })), {
        binary: true,
      });
    });
    cleanup.add(() => {
      for (const peer of peers) peer.terminate();
    });
    const recorder = recordingLogger();
    const remote = await connectAcp(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/acp/ws`, {
      logger: recorder.logger,
      stallTimeoutMs: 300,
      pingIntervalMs: 0,
    });
    cleanup.add(() => remote.close());
    const peer = peers[0]!;
    const closedAtServer = new Promise<{ code: number; reason: string }>((resolve) =>
      peer.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const writer = remote.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', method: '_test/hello', params: {} } as AnyMessage);
    const reason = expect.stringMatching(/^no progress: the peer acknowledged nothing for \d+ ms$/);
    expect(await remote.closed).toEqual({ code: 1008, reason });
    expect(await closedAtServer).toEqual({ code: 1008, reason });
    expect((await recorder.waitFor(/acknowledged nothing/)).message).toBe(
      'connection closed: no progress, the peer acknowledged nothing it received',
    );
  });
});
