import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { runMirror, serveAcp } from '../src/index.js';
import { startHeartbeat } from '../src/websocket/heartbeat.js';
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

describe('heartbeat liveness under backpressure', () => {
  async function pairWithoutPongs() {
    const listener = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanup.add(() => new Promise((resolve) => listener.close(resolve)));
    await new Promise((resolve) => listener.once('listening', resolve));
    const { port } = listener.address() as { port: number };
    const accepted = new Promise<WebSocket>((resolve) => listener.once('connection', resolve));
    // The peer never answers pings: only other signs of life can keep it connected.
    const client = new WebSocket(`ws://127.0.0.1:${port}`, { autoPong: false });
    client.on('error', () => {});
    cleanup.add(() => client.terminate());
    await new Promise((resolve) => client.once('open', resolve));
    const server = await accepted;
    server.on('error', () => {});
    cleanup.add(() => server.terminate());
    return { client, server };
  }

  it('makes no verdict while the relay has paused reading the socket, keeps pinging, and judges again on resume', async () => {
    const { client, server } = await pairWithoutPongs();
    let missed = 0;
    startHeartbeat(server, 100, () => {
      missed += 1;
    });
    server.pause();
    let pings = 0;
    await new Promise<void>((resolve) =>
      client.on('ping', () => {
        pings += 1;
        if (pings === 10) resolve();
      }),
    );
    // 10 intervals without a single pong: still open, because nothing can be read while paused.
    expect(missed).toBe(0);
    expect(server.readyState).toBe(WebSocket.OPEN);
    const closed = new Promise((resolve) => server.once('close', resolve));
    server.resume();
    await closed;
    expect(missed).toBe(1);
  });

  it('counts the peer`s own pings as life when its pongs do not come', async () => {
    const { client, server } = await pairWithoutPongs();
    let missed = 0;
    startHeartbeat(server, 100, () => {
      missed += 1;
    });
    // The peer pings every 70 ms (as a paused relay on the other end does) and never answers ours.
    const pinger = setInterval(() => client.ping(), 70);
    cleanup.add(() => clearInterval(pinger));
    let serverPings = 0;
    await new Promise<void>((resolve) =>
      client.on('ping', () => {
        serverPings += 1;
        if (serverPings === 10) resolve();
      }),
    );
    expect(missed).toBe(0);
    const closed = new Promise((resolve) => server.once('close', resolve));
    clearInterval(pinger);
    await closed;
    expect(missed).toBe(1);
  });
});
