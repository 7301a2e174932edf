// A peer that does not offer `acpkit.resume.v1` (the Python acpremote, websocat, a browser) sees the plain wire byte
// for byte, whether the server has resume on (the default) or off: the same 101 answer, one text frame per JSON-RPC
// message carrying the agent's bytes unchanged, no control frame, and a drop that ends the session at once.
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  childPids,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const ACCEPT = createHash('sha1').update(`${KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');

/** A masked client text frame (RFC 6455: clients mask). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!));
  return Buffer.concat([header, mask, masked]);
}

/** An unmasked server text frame. */
function serverFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

/** The hold agent's answer line to an echo request (`JSON.stringify`, as it writes it). */
const echoAnswer = (id: number, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: params });

describe('the plain wire for peers without the resume subprotocol', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  async function exchange(server: RunningServer, protocolHeader: string | undefined) {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const requests = [
      { id: 1, params: { text: 'plain' } },
      { id: 2, params: { text: 'é ✓ \u2028 "quoted"', nested: { list: [1, 2.5, null, true] } } },
      { id: 3, params: { blob: 'z'.repeat(300) } },
    ];
    socket.write(
      [
        'GET /acp/ws HTTP/1.1',
        `Host: 127.0.0.1:${server.port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${KEY}`,
        'Sec-WebSocket-Version: 13',
        ...(protocolHeader === undefined ? [] : [`Sec-WebSocket-Protocol: ${protocolHeader}`]),
        '',
        '',
      ].join('\r\n'),
    );
    for (const request of requests) {
      socket.write(
        clientFrame(
          JSON.stringify({ jsonrpc: '2.0', id: request.id, method: '_test/echo', params: request.params }),
        ),
      );
    }
    const expectedFrames = Buffer.concat(
      requests.map((request) => serverFrame(echoAnswer(request.id, request.params))),
    );
    const bytes = () => Buffer.concat(received);
    await waitFor(
      () => {
        const all = bytes();
        return (
          all.length - (all.indexOf('\r\n\r\n') + 4) >= expectedFrames.length && all.includes('\r\n\r\n')
        );
      },
      10_000,
      () => JSON.stringify(bytes().toString('latin1')),
    );
    const all = bytes();
    const split = all.indexOf('\r\n\r\n') + 4;
    return {
      socket,
      handshake: all.subarray(0, split).toString('latin1'),
      frames: all.subarray(split),
      expectedFrames,
    };
  }

  it.each([
    ['resume on (the default)', []],
    ['resume off', ['--resume-window', '0']],
  ])('answers exactly as before with %s', async (_name, flags) => {
    const server = await startAcpremote([
      'expose',
      ...flags,
      '--',
      process.execPath,
      fixturePath('hold-agent.mjs'),
    ]);
    servers.push(server);
    const { socket, handshake, frames, expectedFrames } = await exchange(server, undefined);
    expect(handshake).toBe(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${ACCEPT}\r\n\r\n`,
    );
    expect(frames.equals(expectedFrames)).toBe(true);
    // A network drop ends a plain session at once: nothing kept, the agent reaped.
    socket.resetAndDestroy();
    await waitFor(
      () => /connection closed connection=1/.test(server.stderr()),
      10_000,
      () => server.stderr(),
    );
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      10_000,
      () => 'agent not reaped',
    );
    expect(server.stderr()).not.toMatch(/session kept for resume/);

    // A peer offering another subprotocol gets it echoed, as `ws` always did, and the same plain frames.
    const other = await exchange(server, 'chat');
    expect(other.handshake).toContain('\r\nSec-WebSocket-Protocol: chat\r\n');
    expect(other.frames.equals(other.expectedFrames)).toBe(true);
    other.socket.destroy();
  });
});
