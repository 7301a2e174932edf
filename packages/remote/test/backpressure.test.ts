import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serveCommand } from '../src/index.js';
import { Cleanup, RawClient, recordingLogger } from './support/helpers.js';

const GATED_READER = fileURLToPath(new URL('./fixtures/gated-reader.mjs', import.meta.url));
const FLOOD_WRITER = fileURLToPath(new URL('./fixtures/flood-writer.mjs', import.meta.url));

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('serveCommand flow control', () => {
  it('stops reading the socket while the agent stdin is full, then delivers every message', async () => {
    const messages = 64;
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, GATED_READER, String(messages)], {
      port: 0,
      logger: recorder.logger,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    const { params } = await raw.next((message) => message.method === '_test/pid');
    const blob = 'b'.repeat(256 * 1024);
    for (let index = 0; index < messages; index += 1) {
      raw.send({ jsonrpc: '2.0', method: '_vendor/chunk', params: { index, blob } });
    }
    await recorder.waitFor(/paused reading the WebSocket: agent stdin is full/);
    process.kill(params.pid, 'SIGUSR1');
    const read = await raw.next((message) => message.method === '_test/read');
    expect(read.params.lines).toBe(messages);
    await recorder.waitFor(/resumed reading the WebSocket/);
  });

  it('stops reading the agent stdout while the socket send buffer is full, then delivers every line', async () => {
    const count = 256;
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, FLOOD_WRITER, String(count), String(128 * 1024)], {
      port: 0,
      logger: recorder.logger,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    // Stop reading on the client so the server's send buffer fills up.
    raw.socket.pause();
    await recorder.waitFor(/paused reading agent stdout/);
    raw.socket.resume();
    const last = await raw.next(
      (message) => message.method === '_test/flood' && message.params.index === count - 1,
    );
    expect(last.params.blob).toHaveLength(128 * 1024);
    await recorder.waitFor(/resumed reading agent stdout/);
  });
});
