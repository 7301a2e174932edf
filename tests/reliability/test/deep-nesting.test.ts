import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';
import { startRawAgentMirror } from './support/raw-agent-relay.js';

/** ~10k levels of nested arrays (~20 KB): deeper than any recursive JSON.stringify/parse walk survives. */
const DEEP = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;

describe('deeply nested JSON (issue 14 item 9)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('the mirror rewrites deep initialize and session requests and adds latency meta to deep updates, and keeps running', async () => {
    const { editor, send, answer } = await startRawAgentMirror(['--latency-meta'], servers);
    const answered = (id: string) => answer(`"${id}"`);

    send(
      `{"jsonrpc":"2.0","id":"i1","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true,"deep":${DEEP}}}}`,
    );
    await answered('i1');
    send(
      `{"jsonrpc":"2.0","id":"n1","method":"session/new","params":{"cwd":"/local/path","mcpServers":[],"deep":${DEEP}}}`,
    );
    await answered('n1');
    send(
      `{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":"s","prompt":[],"deep":${DEEP}}}`,
    );
    await answered('p1');
    const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"deep":${DEEP}}}`;
    expect((await editor.request('_test/emit', { lines: [update] })).result).toEqual({ emitted: 1 });

    const relayedUpdate = editor.lines.find((line) => line.includes('"sessionUpdate":"agent_message_chunk"'));
    expect(relayedUpdate).toContain('"acpkit.dev/transport-latency"');
    expect(relayedUpdate).toContain(DEEP);

    const { result } = await editor.request('_test/received', {});
    const received = (result as { lines: string[] }).lines;
    const initialize = received.find((line) => line.includes('"initialize"'))!;
    const capabilities = JSON.parse(initialize).params.clientCapabilities;
    expect(capabilities.fs).toEqual({ readTextFile: false, writeTextFile: false });
    expect(capabilities.terminal).toBe(false);
    expect(initialize).toContain(DEEP);
    const sessionNew = received.find((line) => line.includes('"session/new"'))!;
    expect(JSON.parse(sessionNew).params.cwd).toBe(process.cwd());
    expect(sessionNew).toContain(DEEP);
    expect(editor.child.exitCode).toBeNull();
    expect(editor.nonJsonRpcLines).toEqual([]);
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  }, 60_000);

  it('`serve` answers a deep message with a JSON-RPC error and keeps the connection', async () => {
    const server = await startAcpremote(['serve', `${fixturePath('echo-agent-app.mjs')}:createEchoAgent`]);
    servers.push(server);
    const socket = new WebSocket(server.url, { perMessageDeflate: false });
    socket.on('error', () => {});
    await once(socket, 'open');
    const frames: string[] = [];
    socket.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
    let closeCode: number | undefined;
    socket.on('close', (code) => {
      closeCode = code;
    });

    socket.send(`{"a":${DEEP}}`);
    socket.send(`{"jsonrpc":"2.0","id":"d1","method":"_x/echo","params":{"a":${DEEP}}}`);
    socket.send(
      '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}',
    );
    await waitFor(
      () => frames.length >= 3 || closeCode !== undefined,
      10_000,
      () => `frames: ${frames.join('\n')}`,
    );
    expect(closeCode).toBeUndefined();
    const [notRpc, deepRequest, initialize] = frames.map((frame) => JSON.parse(frame));
    expect(notRpc).toMatchObject({ id: null, error: { code: -32600 } });
    expect(deepRequest).toMatchObject({ id: 'd1', error: { code: -32600 } });
    expect(initialize).toMatchObject({ id: 'init', result: { protocolVersion: 1 } });
    socket.close();
  }, 60_000);
});
