import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fixturePath, killStartedProcesses, spawnStdioPeer, waitFor } from './support/processes.js';
import { startServeCommandHost } from './support/raw-agent-relay.js';

// Short heartbeats, so a connection killed for missed pongs dies within a fraction of the hold below.
const PING_INTERVAL_MS = 200;
const HOLD_INTERVALS = 20;

/** `serveCommand` (library) with a short ping interval and the default 60 s stall timeout, in its own process. */
const startServer = (agent: string) =>
  startServeCommandHost(PING_INTERVAL_MS, [process.execPath, fixturePath(agent)]);

const request = (id: string, method: string, params: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('liveness while the relay applies backpressure (issue 14 item 7)', () => {
  afterEach(() => killStartedProcesses());

  it('keeps a healthy client connected while the agent does not read its stdin for many ping intervals', async () => {
    const server = await startServer('raw-agent.mjs');
    const socket = new WebSocket(server.url, { perMessageDeflate: false });
    socket.on('error', () => {});
    await once(socket, 'open');
    const replies = new Map<string, string>();
    socket.on('message', (data: Buffer) => {
      const id = /"id":"([^"]+)"/.exec(data.toString('utf8'))?.[1];
      if (id) replies.set(id, data.toString('utf8'));
    });
    let closeCode: number | undefined;
    socket.on('close', (code) => {
      closeCode = code;
    });
    socket.send(request('init', 'initialize', { protocolVersion: 1, clientCapabilities: {} }));
    socket.send(request('pause', '_test/pause_stdin', {}));
    await waitFor(
      () => replies.has('pause'),
      10_000,
      () => 'no answer to _test/pause_stdin',
    );
    const agentPid = (JSON.parse(replies.get('pause')!) as { result: { pid: number } }).result.pid;

    // 4 MiB the agent does not read: the relay's stdin queue fills and it stops reading the socket.
    const padding = 'p'.repeat(64 * 1024);
    for (let index = 0; index < 64; index += 1) socket.send(request(`r${index}`, '_x/echo', { padding }));
    let pings = 0;
    socket.on('ping', () => {
      pings += 1;
    });
    // The server keeps pinging while it does not read; a connection killed for missed pongs closes instead.
    await waitFor(
      () => pings >= HOLD_INTERVALS || closeCode !== undefined,
      HOLD_INTERVALS * PING_INTERVAL_MS * 10,
      () => `pings ${pings}`,
    );
    expect(closeCode).toBeUndefined();

    process.kill(agentPid, 'SIGUSR1');
    await waitFor(
      () => replies.size === 66 || closeCode !== undefined,
      30_000,
      () => `${replies.size} replies`,
    );
    expect(closeCode).toBeUndefined();
    expect(replies.size).toBe(66);
    expect(server.stderr()).not.toMatch(/missed pong/);
    socket.close();
  }, 60_000);

  it('keeps the mirror connected while the editor does not read its stdout for many ping intervals', async () => {
    const server = await startServer('raw-agent.mjs');
    const editor = spawnStdioPeer(process.execPath, [
      fixturePath('ping-mirror.mjs'),
      server.url,
      String(PING_INTERVAL_MS),
    ]);
    expect(
      (await editor.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).result,
    ).toBeDefined();

    // The editor stops reading; the agent then writes ~2.5 MiB towards it.
    editor.child.stdout.pause();
    const update = (index: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 's',
          update: {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: `${index}`.padEnd(65_536, '.') },
          },
        },
      });
    const lines = Array.from({ length: 40 }, (_, index) => update(index));
    const emitted = editor.request('_test/emit', { lines });
    await new Promise((resolve) => setTimeout(resolve, HOLD_INTERVALS * PING_INTERVAL_MS));
    expect(editor.child.exitCode).toBeNull();

    editor.child.stdout.resume();
    expect((await emitted).result).toEqual({ emitted: 40 });
    expect(editor.lines.filter((line) => line.includes('agent_message_chunk'))).toHaveLength(40);
    expect((await editor.request('_x/after', {})).result).toEqual({ ok: true });
    expect(editor.stderr()).not.toMatch(/missed pong/);
    expect(server.stderr()).not.toMatch(/missed pong/);
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  }, 60_000);
});
