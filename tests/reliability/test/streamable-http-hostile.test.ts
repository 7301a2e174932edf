// Hostile clients of the Streamable HTTP endpoint (issue 27), against the built `acpremote expose` over real sockets:
// readers that never read and take each other's stream over, slow POST bodies, events kept for `Last-Event-ID`,
// and requests the agent never answers.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  liveMemory,
  MEMORY_PROBE,
  openFileDescriptors,
  type RunningServer,
  startAcpremote,
  tcpSocketDescriptors,
  waitFor,
} from './support/processes.js';

const HOLD_AGENT = [process.execPath, fixturePath('hold-agent.mjs')];

/** The replay gauge of a server's `/metrics` (bytes of sent events kept for `Last-Event-ID`). */
async function replayBytes(endpoint: string): Promise<number> {
  const metrics = await httpExchange(endpoint.replace(/\/acp$/, '/metrics'), { method: 'GET' });
  const match = /^acpremote_buffered_bytes\{buffer="replay"\} (\d+)/m.exec(metrics.body);
  if (match === null) throw new Error(`no replay gauge in /metrics: ${metrics.body.slice(0, 500)}`);
  return Number(match[1]);
}

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
    // The server's TCP sockets with no client connected (the listening one): what it must come back to.
    const idle = tcpSocketDescriptors(pid);
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
    await waitFor(
      () => tcpSocketDescriptors(pid) <= idle,
      10_000,
      () => `the server holds ${tcpSocketDescriptors(pid)} sockets, ${idle} idle`,
    );
    // Each GET replays the 10 MiB from event 1 and takes the stream over from the previous one, which never read.
    for (let index = 0; index < 120; index += 1)
      sockets.push(await neverReadingStream(endpoint, connectionId, 0));
    await waitFor(
      () => tcpSocketDescriptors(pid) <= idle + 2,
      10_000,
      () =>
        `the server holds ${tcpSocketDescriptors(pid)} sockets after 120 never-reading readers, ${idle} idle`,
    );
    console.info(
      `takeovers: ${idle} server sockets idle, ${tcpSocketDescriptors(pid)} after 120 never-reading readers`,
    );
    const deleted = await httpExchange(endpoint, {
      method: 'DELETE',
      headers: { 'Acp-Connection-Id': connectionId },
    });
    expect(deleted.status).toBe(202);
    // The last reader gets the closing comment; it reads nothing, so its response is destroyed within the bound.
    await waitFor(
      () => tcpSocketDescriptors(pid) <= idle,
      20_000,
      () => `the server holds ${tcpSocketDescriptors(pid)} sockets after DELETE, ${idle} idle`,
    );
    // The server answers as before; a new connection once the old one's agent is reaped (--max-connections 1).
    expect((await httpExchange(endpoint.replace(/\/acp$/, '/healthz'), { method: 'GET' })).status).toBe(200);
    await waitFor(
      () => /connection closed/.test(server.stderr()),
      10_000,
      () => server.stderr().slice(-2_000),
    );
    expect(await initializeConnection(endpoint)).toMatch(/^[0-9a-f-]{36}$/);
  }, 90_000);

  it('--max-event-streams bounds the event streams of the whole server: one more GET gets 503, a closed one frees its slot (defect 1)', async () => {
    const server = await startAcpremote(['expose', '--max-event-streams', '2', '--', ...HOLD_AGENT]);
    servers.push(server);
    const endpoint = endpointOf(server);
    const connectionId = await initializeConnection(endpoint);
    const stream = (session: string) =>
      httpExchange(endpoint, {
        method: 'GET',
        headers: {
          Accept: 'text/event-stream',
          'Acp-Connection-Id': connectionId,
          'Acp-Session-Id': session,
        },
        timeoutMs: 5_000,
      });
    /** A GET of session `session`'s stream on a raw socket; resolves with the status of its answer. */
    const openStream = async (session: string) => {
      const socket = await rawRequest(
        endpoint,
        [
          'GET /acp HTTP/1.1',
          'Accept: text/event-stream',
          `Acp-Connection-Id: ${connectionId}`,
          `Acp-Session-Id: ${session}`,
        ].join('\r\n'),
      );
      sockets.push(socket);
      const [head] = (await once(socket, 'data')) as [Buffer];
      return { socket, status: Number(head.toString('latin1').split(' ')[1]) };
    };
    const first = await openStream('s1');
    expect(first.status).toBe(200);
    expect((await openStream('s2')).status).toBe(200);
    const refused = await stream('s3');
    expect(refused.status).toBe(503);
    expect(refused.body).toBe('too many event streams on this server\n');
    first.socket.destroy();
    // The slot frees once the server saw the socket close: polled, 100 ms apart, for at most 5 s.
    let status = 503;
    for (let attempt = 0; attempt < 50 && status === 503; attempt += 1) {
      status = (await openStream('s4')).status;
      if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  }, 60_000);

  it('80 slow POST bodies that reopen at once lock out neither /healthz, /readyz nor a legitimate initialize (defect 2)', async () => {
    const server = await startAcpremote(['expose', '--', ...HOLD_AGENT]);
    servers.push(server);
    const pid = server.child.pid!;
    const endpoint = endpointOf(server);
    const origin = endpoint.replace(/\/acp$/, '');
    const baseline = openFileDescriptors(pid);
    // The server's TCP sockets before the attack (the listening one): the legitimate initializes below also hold
    // their agents' pipes, which are not the attacker's.
    const idleSockets = tcpSocketDescriptors(pid);
    let attacking = true;
    const open = new Set<Socket>();
    let opened = 0;
    // The attacker connects from another loopback address than the legitimate client (127.0.0.1), as a flood from
    // another host would: before its head arrives the server cannot tell a connection from a flooder's, and it
    // keeps the client that holds fewer connections (a client sharing the flooder's address shares its fate).
    const attack = async (): Promise<void> => {
      if (!attacking) return;
      let socket: Socket;
      try {
        socket = await rawRequest(
          endpoint,
          ['POST /acp HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 100000'].join('\r\n'),
          '{',
          '127.0.0.2',
        );
      } catch {
        // Closed by the server before its connect was seen here: an attacker that does not give up tries again.
        setImmediate(() => void attack());
        return;
      }
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
    // However many it opened, the attacker held no more than the cap of plain HTTP connections (64 by default), plus
    // the one a newcomer's admission has just closed and whose descriptor goes at the end of that loop turn.
    const held = tcpSocketDescriptors(pid) - idleSockets;
    console.info(
      `slow bodies: the attacker opened ${opened} sockets, the server held ${held} more TCP sockets`,
    );
    for (const socket of open) socket.destroy();
    expect(held).toBeLessThanOrEqual(64 + 1);
  }, 90_000);

  it('events kept for Last-Event-ID expire on time, with no traffic after them (defect 3)', async () => {
    const server = await startAcpremote(['expose', '--metrics', '--resume-window', '2', '--', ...HOLD_AGENT]);
    servers.push(server);
    const endpoint = endpointOf(server);
    const connectionId = await initializeConnection(endpoint);
    const reader = await readingStream(endpoint, connectionId);
    sockets.push(reader.socket);
    expect(
      await postMessage(endpoint, connectionId, { id: 1, method: '_test/ticks', params: { ticks: 1_000 } }),
    ).toBe(202);
    await waitFor(
      () => /"result":\{.*"ticks":1000\}/.test(reader.tail()),
      10_000,
      () => reader.tail(),
    );
    expect(await replayBytes(endpoint)).toBeGreaterThan(1_000 * 40);
    // Nothing more is sent: the window alone must let them go.
    let kept = -1;
    const deadline = Date.now() + 6_000;
    while (Date.now() < deadline && kept !== 0) {
      kept = await replayBytes(endpoint);
      if (kept !== 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(kept, 'replay bytes 4 s after a 2 s window, with no traffic').toBe(0);
  }, 60_000);

  describe.each([
    ['tiny (~70-byte) events', 'ticks'],
    ['large (60 KiB) events', 'echo'],
  ])(
    'live memory of the events kept for Last-Event-ID stays within the bound + 25 %%: %s (defect 3)',
    (_name, kind) => {
      it('floods the connection stream through a reader, then measures live memory after a full GC', async () => {
        const budget = 8 * 1024 * 1024;
        const messageBytes = 1024 * 1024;
        const probeDirectory = mkdtempSync(join(tmpdir(), 'acpkit-probe-'));
        try {
          const server = await startAcpremote(
            [
              'expose',
              '--metrics',
              '--resume-buffer-bytes',
              String(budget),
              '--max-message-bytes',
              String(messageBytes),
              '--',
              ...HOLD_AGENT,
            ],
            { nodeArgs: ['--import', MEMORY_PROBE], env: { ACPKIT_SOAK_PROBE_DIR: probeDirectory } },
          );
          servers.push(server);
          const pid = server.child.pid!;
          const endpoint = endpointOf(server);
          const connectionId = await initializeConnection(endpoint);
          const reader = await readingStream(endpoint, connectionId);
          sockets.push(reader.socket);
          let nextId = 1;
          /** Sends events through the connection stream and waits until the reader got the last one. */
          const flood = async (events: number) => {
            if (kind === 'ticks') {
              const id = nextId++;
              expect(
                await postMessage(endpoint, connectionId, {
                  id,
                  method: '_test/ticks',
                  params: { ticks: events },
                }),
              ).toBe(202);
              await waitFor(
                // The answer carries its durable-resume cursor first: `"result":{"_meta":{…},"ticks":n}`.
                () => new RegExp(`"id":${id},"result":\\{.*"ticks":${events}\\}`).test(reader.tail()),
                120_000,
                () => reader.tail().slice(-300),
              );
              return;
            }
            const pad = 'x'.repeat(60 * 1024);
            let last = 0;
            for (let index = 0; index < events; index += 1) {
              last = nextId++;
              expect(
                await postMessage(endpoint, connectionId, {
                  id: last,
                  method: '_test/echo',
                  params: { pad, last },
                }),
              ).toBe(202);
            }
            await waitFor(
              () => reader.tail().includes(`"last":${last}}`),
              120_000,
              () => reader.tail().slice(-300),
            );
          };
          // Warm-up (code, pools), then the baseline with nothing kept beyond that.
          await flood(kind === 'ticks' ? 2_000 : 4);
          const before = await liveMemory(pid, probeDirectory, 1);
          await flood(kind === 'ticks' ? 400_000 : 300);
          const kept = await replayBytes(endpoint);
          const after = await liveMemory(pid, probeDirectory, 2);
          // Only the newest event may use the room for one message (issue 32 item 4): a flood keeps to the budget,
          // plus that one event.
          const bound = budget + (kind === 'ticks' ? 1024 : 64 * 1024);
          const growth = after - before;
          // The figure for the closing note.
          console.info(
            `${kind}: live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB keeping ${(kept / 2 ** 20).toFixed(1)} MiB (bound ${(bound / 2 ** 20).toFixed(1)} MiB)`,
          );
          // The budget is used (the test measures something), and what it keeps costs no more than it says + 25 %.
          expect(kept).toBeGreaterThan(budget / 2);
          expect(kept).toBeLessThanOrEqual(bound);
          expect(
            growth,
            `live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB keeping ${(kept / 2 ** 20).toFixed(1)} MiB (bound ${(bound / 2 ** 20).toFixed(1)} MiB)`,
          ).toBeLessThanOrEqual(bound * 1.25);
        } finally {
          rmSync(probeDirectory, { recursive: true, force: true });
        }
      }, 180_000);
    },
  );

  it('requests the agent never answers, with 1 KiB ids and session ids, keep the route table within its byte bound (defect 4)', async () => {
    const probeDirectory = mkdtempSync(join(tmpdir(), 'acpkit-probe-'));
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    try {
      const server = await startAcpremote(['expose', '--metrics', '--', ...HOLD_AGENT], {
        nodeArgs: ['--import', MEMORY_PROBE],
        env: { ACPKIT_SOAK_PROBE_DIR: probeDirectory },
      });
      servers.push(server);
      const pid = server.child.pid!;
      const endpoint = endpointOf(server);
      const connectionId = await initializeConnection(endpoint);
      const reader = await readingStream(endpoint, connectionId);
      sockets.push(reader.socket);
      const sessionId = 's'.repeat(1000);
      const post = (index: number) =>
        new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: `${index}:${'i'.repeat(1000)}`.slice(0, 1000),
            method: '_test/hold',
            params: { sessionId },
          });
          const request = httpRequest(
            endpoint,
            {
              method: 'POST',
              agent,
              headers: { 'Content-Type': 'application/json', 'Acp-Connection-Id': connectionId },
            },
            (response) => {
              response.resume();
              response.once('end', () => resolve(response.statusCode ?? 0));
            },
          );
          request.once('error', reject);
          request.end(body);
        });
      /** Posts `count` held requests, 16 at a time; every one is taken (202). */
      const postMany = async (from: number, count: number) => {
        let next = from;
        const worker = async () => {
          while (next < from + count) expect(await post(next++)).toBe(202);
        };
        await Promise.all(Array.from({ length: 16 }, worker));
      };
      await postMany(0, 500);
      const before = await liveMemory(pid, probeDirectory, 1);
      await postMany(500, 20_000);
      const after = await liveMemory(pid, probeDirectory, 2);
      const growth = after - before;
      console.info(`routes: live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB for 20,000 held requests`);
      // The documented bound (8 MiB of routes per connection, counted generously) + 25 %.
      expect(growth, `live memory grew ${(growth / 2 ** 20).toFixed(1)} MiB`).toBeLessThanOrEqual(
        10 * 2 ** 20,
      );
      const metrics = await httpExchange(endpoint.replace(/\/acp$/, '/metrics'), { method: 'GET' });
      expect(metrics.body).toMatch(/^acpremote_limits_reached_total\{limit="pending_routes"\} [1-9]/m);
    } finally {
      agent.destroy();
      rmSync(probeDirectory, { recursive: true, force: true });
    }
  }, 180_000);
});
