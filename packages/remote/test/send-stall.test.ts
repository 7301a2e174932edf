import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serveCommand } from '../src/index.js';
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
