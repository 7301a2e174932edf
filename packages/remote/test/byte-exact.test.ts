import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { runMirror } from '../src/index.js';
import { Cleanup, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A bare `ws` upstream that records the exact text frames it receives. */
async function startRecordingUpstream() {
  const httpServer = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  const webSocketServer = new WebSocketServer({ server: httpServer, perMessageDeflate: false });
  const frames: string[] = [];
  const frameListeners: Array<() => void> = [];
  let peer: WebSocket | undefined;
  const connected = new Promise<WebSocket>((resolve) => {
    webSocketServer.on('connection', (socket) => {
      peer = socket;
      socket.on('message', (data: Buffer) => {
        frames.push(data.toString('utf8'));
        for (const listener of frameListeners) listener();
      });
      resolve(socket);
    });
  });
  httpServer.listen(0, '127.0.0.1');
  await once(httpServer, 'listening');
  cleanup.add(async () => {
    peer?.terminate();
    webSocketServer.close();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  });
  const { port } = httpServer.address() as AddressInfo;
  const waitForFrames = (count: number) =>
    new Promise<string[]>((resolve) => {
      const check = () => {
        if (frames.length >= count) resolve(frames.slice(0, count));
      };
      frameListeners.push(check);
      check();
    });
  return { url: `ws://127.0.0.1:${port}/acp/ws`, connected, waitForFrames };
}

function collectLines(output: PassThrough) {
  const lines: string[] = [];
  let pending = '';
  const listeners: Array<() => void> = [];
  output.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString('utf8')).split('\n');
    pending = parts.pop() ?? '';
    lines.push(...parts);
    for (const listener of listeners) listener();
  });
  return (count: number) =>
    new Promise<string[]>((resolve) => {
      const check = () => {
        if (lines.length >= count) resolve(lines.slice(0, count));
      };
      listeners.push(check);
      check();
    });
}

describe('byte-exact relaying through the mirror', () => {
  it('forwards many lines from one input chunk in order and byte for byte, both ways', async () => {
    const upstream = await startRecordingUpstream();
    const input = new PassThrough();
    const output = new PassThrough();
    const waitForLines = collectLines(output);
    const exitCode = runMirror(upstream.url, {
      input,
      output,
      logger: recordingLogger().logger,
      pingIntervalMs: 0,
    });
    cleanup.add(async () => {
      input.end();
      await exitCode;
    });
    const peer = await upstream.connected;

    // Unusual but valid formatting the relay must not normalise: spacing, key order, number spelling, escapes.
    const editorLines = Array.from(
      { length: 50 },
      (_, index) =>
        `{ "params" : {"n":1.0e0,"s":"\\u00e9 é \\"${index}\\"","t":"\\t"},\t"method":"_vendor/x","id":${index},"jsonrpc":"2.0"}`,
    );
    input.write(`${editorLines.join('\n')}\n`);
    expect(await upstream.waitForFrames(50)).toEqual(editorLines);

    const remoteFrames = Array.from(
      { length: 50 },
      (_, index) => `{"jsonrpc":"2.0" , "id":${index},"result":{"echo":"\\u2713 ✓","big":1E+2}}`,
    );
    for (const frame of remoteFrames) peer.send(frame);
    // A frame with raw newlines (JSON whitespace) must still arrive as exactly one line.
    peer.send('{"jsonrpc":"2.0",\n"method":"_vendor/multi-line",\r\n"params":{"text":"a\\nb"}}');
    const lines = await waitForLines(51);
    expect(lines.slice(0, 50)).toEqual(remoteFrames);
    expect(lines[50]).not.toMatch(/[\r\n]/);
    expect(JSON.parse(lines[50]!)).toEqual({
      jsonrpc: '2.0',
      method: '_vendor/multi-line',
      params: { text: 'a\nb' },
    });
  });

  it('answers an invalid editor line itself and relays the valid lines around it unchanged', async () => {
    const upstream = await startRecordingUpstream();
    const input = new PassThrough();
    const output = new PassThrough();
    const waitForLines = collectLines(output);
    const exitCode = runMirror(upstream.url, {
      input,
      output,
      logger: recordingLogger().logger,
      pingIntervalMs: 0,
    });
    cleanup.add(async () => {
      input.end();
      await exitCode;
    });
    await upstream.connected;
    const before = '{"jsonrpc":"2.0","method":"_vendor/before"}';
    const after = '{"jsonrpc":"2.0","method":"_vendor/after"}';
    input.write(`${before}\n{"jsonrpc":"2.0","method":"x",}\n42\n${after}\n`);
    expect(await upstream.waitForFrames(2)).toEqual([before, after]);
    const [parseError, notObject] = (await waitForLines(2)).map((line) => JSON.parse(line));
    expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
    expect(notObject).toMatchObject({ id: null, error: { code: -32600 } });
  });
});
