import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { HIGH_WATER_BYTES, PauseReason } from '../src/relay/flow-control.js';
import { FrameLog } from '../src/relay/frame-log.js';
import { Relay } from '../src/relay/relay-core.js';
import { CloseCode } from '../src/shared/constants.js';
import { ROUTE_WATCH, type RouteKeys } from '../src/wire/route-keys.js';
import { Cleanup } from './support/helpers.js';
import {
  AGENT_RULES,
  EDITOR_RULES,
  memoryLogger,
  openSocketPair,
  plainPort,
  startTestRelay,
  WEBSOCKET_RULES,
} from './support/relay-pair.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function relayFor(overrides: Parameters<typeof startTestRelay>[0] = {}) {
  const started = await startTestRelay(overrides);
  cleanup.add(() => started.close());
  const lines: string[] = [];
  let pending = '';
  const readLines = () =>
    started.output.on('data', (chunk: Buffer) => {
      const parts = (pending + chunk.toString('utf8')).split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
    });
  const frames: string[] = [];
  started.client.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  };
  return { ...started, lines, frames, readLines, until };
}

describe('Relay (the relay core)', () => {
  it('forwards frames and lines as the bytes received, both ways, and answers garbage from either side', async () => {
    const { client, input, lines, frames, readLines, until } = await relayFor();
    readLines();
    const fromClient = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"m","params":{"n":1.10}}';
    client.send(fromClient);
    client.send('{"jsonrpc":"2.0",\n"method":"n"}');
    client.send('not json');
    const fromLines = '{"jsonrpc":"2.0","id":1,"result":{"big":9007199254740993}}';
    input.write(`${fromLines}\r\n[1]\n\n`);
    await until(() => lines.length >= 3 && frames.length >= 2);
    // Relayed frames become lines, in order; a refused frame is answered to its sender (order across the two
    // sides is not defined).
    expect(lines.filter((line) => !line.includes('"error"'))).toEqual([
      fromClient,
      '{"jsonrpc":"2.0", "method":"n"}',
    ]);
    expect(lines).toContain(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: JSON-RPC batches are not supported"}}',
    );
    expect(frames).toEqual([
      fromLines,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    ]);
  });

  it('hands refused lines to the direction`s own handler when it has one', async () => {
    const refused: string[] = [];
    const { input, frames, until } = await relayFor({
      fromLines: {
        rules: AGENT_RULES,
        sender: 'agent',
        refused: (refusal) => refused.push(`${refusal.reason}:${refusal.bytes.toString()}`),
        oversize: () => {},
      },
    });
    input.write('log line\n\ufeff{"jsonrpc":"2.0","method":"ok"}\n');
    await until(() => frames.length >= 1);
    expect(frames).toEqual(['{"jsonrpc":"2.0","method":"ok"}']);
    expect(refused).toEqual(['parse:log line']);
  });

  it('answers an oversized request from the socket with its id, and closes with 1009 otherwise', async () => {
    const { client, frames, until } = await relayFor({ maxMessageBytes: 64 });
    client.send(`{"jsonrpc":"2.0","id":"big","method":"m","params":"${'x'.repeat(100)}"}`);
    await until(() => frames.length >= 1);
    expect(JSON.parse(frames[0]!)).toMatchObject({ id: 'big', error: { code: -32600 } });
    const closed = once(client, 'close');
    client.send(`{"jsonrpc":"2.0","method":"m","params":"${'x'.repeat(100)}"}`);
    expect((await closed)[0]).toBe(CloseCode.MessageTooBig);
  });

  it('stops reading the socket while the line output is over the high-water mark, then delivers everything in order', async () => {
    const { client, relay, lines, readLines, until } = await relayFor();
    const frame = (index: number) =>
      `{"jsonrpc":"2.0","method":"m","params":{"i":${index},"pad":"${'p'.repeat(64 * 1024)}"}}`;
    const count = 48;
    for (let index = 0; index < count; index += 1) client.send(frame(index));
    // Nobody reads the output: the relay must pause the socket instead of queueing 3 MiB.
    await until(() => relay.port.reading.has(PauseReason.TargetFull));
    expect(relay.lines.output.writableLength).toBeLessThan(HIGH_WATER_BYTES + 128 * 1024);
    readLines();
    await until(() => lines.length === count);
    expect(lines.map((line) => JSON.parse(line).params.i)).toEqual([...Array(count).keys()]);
    expect(relay.port.reading.isPaused).toBe(false);
  });

  it('stops reading the lines while the socket is over the high-water mark, and with pauseFullPeer the socket too', async () => {
    const { client, input, relay, frames, until } = await relayFor({ pauseFullPeer: true });
    const tcp = (client as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    const count = 96;
    for (let index = 0; index < count; index += 1) {
      input.write(
        `{"jsonrpc":"2.0","method":"m","params":{"i":${index},"pad":"${'p'.repeat(64 * 1024)}"}}\n`,
      );
    }
    await until(() => relay.port.reading.has(PauseReason.OwnQueueFull));
    expect(relay.lines.reading.has(PauseReason.TargetFull)).toBe(true);
    tcp.resume();
    await until(() => frames.length === count);
    await until(() => !relay.port.reading.isPaused && !relay.lines.reading.isPaused);
    expect(frames.map((frame) => JSON.parse(frame).params.i)).toEqual([...Array(count).keys()]);
  });

  it('closes a peer that floods frames needing answers and reads none (1008), where it does not pause it', async () => {
    const { client, relay, logger } = await relayFor({ pauseFullPeer: false });
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    let open = true;
    void relay.closed.then(() => {
      open = false;
    });
    while (open) {
      if (client.bufferedAmount < HIGH_WATER_BYTES)
        for (let index = 0; index < 1000; index += 1) client.send('x');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(logger.lines).toContain(
      'closing connection: the peer sends messages that need answers and reads none',
    );
    // The close frame could not pass the unread answers: the socket was destroyed after a short grace.
    expect((await relay.closed).code).toBe(1006);
  });

  it('reports the end of the line input after its last line, even without a newline', async () => {
    let ended = false;
    const { input, frames, until } = await relayFor({
      linesEnded: () => {
        ended = true;
      },
    });
    input.end('{"jsonrpc":"2.0","method":"last"}');
    await until(() => ended);
    await until(() => frames.length === 1);
    expect(frames).toEqual(['{"jsonrpc":"2.0","method":"last"}']);
  });

  it('settles closed with the close code and stops reading the lines', async () => {
    const { client, relay, input } = await relayFor();
    client.close(4321, 'bye');
    expect(await relay.closed).toEqual({ code: 4321, reason: 'bye' });
    expect(input.listenerCount('data')).toBe(0);
  });

  it('hands a port that reads what it receives the keys of its own scan, and relays only what the port lets through', async () => {
    const pair = await openSocketPair();
    cleanup.add(() => pair.close());
    const log = new FrameLog(memoryLogger());
    const port = plainPort(pair.server, log);
    const seen: RouteKeys[] = [];
    let throughRoutes = false;
    const routed = Object.assign(port, {
      inboundRoutes: {
        watch: ROUTE_WATCH,
        receive: (handle: (frame: Buffer) => void) => {
          throughRoutes = true;
          return port.receive(handle);
        },
        received: (keys: RouteKeys) => {
          seen.push(keys);
          return keys.id !== '"kept"';
        },
      },
    });
    const output = new PassThrough();
    const relay = new Relay({
      port: routed,
      input: new PassThrough(),
      output,
      maxMessageBytes: 1024 * 1024,
      log,
      lineNames: { input: 'input', output: 'output' },
      fromPort: { rules: WEBSOCKET_RULES, sender: 'remote' },
      fromLines: { rules: EDITOR_RULES, sender: 'editor', oversize: () => {} },
    });
    relay.start();
    let text = '';
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    pair.client.send('{"jsonrpc":"2.0","id":"kept","result":{"sessionId":"s1"}}');
    pair.client.send('not json');
    pair.client.send('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s2"}}');
    while (!text.includes('s2')) await new Promise((resolve) => setImmediate(resolve));
    expect(text).toBe('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s2"}}\n');
    // A refused frame is never handed over; the others come with what routing reads of them.
    expect(seen).toMatchObject([
      { kind: 'response', id: '"kept"', resultSessionId: 's1' },
      { kind: 'notification', method: 'session/update', sessionId: 's2' },
    ]);
    expect(throughRoutes).toBe(true);
  });
});
