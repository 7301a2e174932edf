import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { runMirror, serveAcp } from '../src/index.js';
import { Cleanup, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('heartbeats', () => {
  it('terminates a server-side socket whose peer never answers pings', async () => {
    const recorder = recordingLogger();
    const idleAgent = () => {
      let close = () => {};
      const closed = new Promise<void>((resolve) => {
        close = resolve;
      });
      return { connect: () => ({ closed, close }) };
    };
    const server = await serveAcp(idleAgent, {
      port: 0,
      pingIntervalMs: 50,
      logger: recorder.logger,
    });
    cleanup.add(() => server.close());
    const socket = new WebSocket(server.url, { autoPong: false });
    cleanup.add(() => socket.terminate());
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    expect(await closed).toBe(1006);
    expect((await recorder.waitFor(/missed pong/)).level).toBe('warn');
  });

  it('makes the mirror give up (exit code 1) on an upstream that never answers pings', async () => {
    const upstream = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false });
    cleanup.add(() => new Promise((resolve) => upstream.close(resolve)));
    upstream.on('connection', (socket) => cleanup.add(() => socket.terminate()));
    await new Promise((resolve) => upstream.once('listening', resolve));
    const { port } = upstream.address() as { port: number };
    const recorder = recordingLogger();
    const exitCode = await runMirror(`ws://127.0.0.1:${port}/acp/ws`, {
      input: new PassThrough(),
      output: new PassThrough(),
      logger: recorder.logger,
      pingIntervalMs: 50,
    });
    expect(exitCode).toBe(1);
    expect((await recorder.waitFor(/missed pong/)).level).toBe('warn');
  });
});
