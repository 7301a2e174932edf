import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { FrameLog } from '../../src/relay/frame-log.js';
import { Relay, type RelayOptions } from '../../src/relay/relay-core.js';
import type { RemoteLogger } from '../../src/shared/logger.js';
import { WebSocketPort } from '../../src/websocket/websocket-port.js';
import type { FrameRules } from '../../src/wire/inbound.js';

/** A connected pair of real `ws` sockets on loopback: `server` is the side a relay runs on. */
export async function openSocketPair(): Promise<{
  server: WebSocket;
  client: WebSocket;
  close(): Promise<void>;
}> {
  const listener = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await once(listener, 'listening');
  const { port } = listener.address() as { port: number };
  const accepted = once(listener, 'connection') as Promise<[WebSocket]>;
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false, maxPayload: 64 << 20 });
  client.on('error', () => {});
  await once(client, 'open');
  const [server] = await accepted;
  server.on('error', () => {});
  return {
    server,
    client,
    async close() {
      client.terminate();
      server.terminate();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}

/** Rules of the mirror's editor side (lines repaired, raw line breaks replaced) and of a WebSocket side. */
export const EDITOR_RULES: FrameRules = { utf8: 'repair', singleLine: true };
export const WEBSOCKET_RULES: FrameRules = { utf8: 'trusted', singleLine: true };
/** Rules of an agent's stdout under `serveCommand`. */
export const AGENT_RULES: FrameRules = { utf8: 'refuse', stripByteOrderMark: true, singleLine: false };

/** A logger that keeps every line. */
export function memoryLogger(): RemoteLogger & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string) => {
    lines.push(message);
  };
  return { lines, info: push, warn: push, error: push, debug: push };
}

/** The port of a relay on `socket` (the server side of a pair), on the plain wire. */
export function plainPort(
  socket: WebSocket,
  log: FrameLog,
  options: { maxMessageBytes?: number; pauseWhenFull?: boolean } = {},
): WebSocketPort {
  return new WebSocketPort(socket, {
    maxMessageBytes: options.maxMessageBytes ?? 1024 * 1024,
    log,
    peer: 'client',
    pauseWhenFull: options.pauseWhenFull ?? false,
  });
}

/**
 * A relay over a real socket pair with in-memory line streams (`input` feeds lines, `output` receives them).
 * `pauseFullPeer` is the port's `pauseWhenFull`.
 */
export async function startTestRelay(
  overrides: Partial<Omit<RelayOptions, 'port'>> & { pauseFullPeer?: boolean } = {},
) {
  const pair = await openSocketPair();
  const input = new PassThrough();
  const output = new PassThrough();
  const logger = memoryLogger();
  const log = new FrameLog(logger);
  const { pauseFullPeer, ...relayOverrides } = overrides;
  const maxMessageBytes = overrides.maxMessageBytes ?? 1024 * 1024;
  const relay = new Relay({
    port: plainPort(pair.server, overrides.log ?? log, {
      maxMessageBytes,
      pauseWhenFull: pauseFullPeer === true,
    }),
    input,
    output,
    maxMessageBytes,
    log,
    lineNames: { input: 'input', output: 'output' },
    fromPort: { rules: WEBSOCKET_RULES, sender: 'client' },
    fromLines: { rules: EDITOR_RULES, sender: 'lines', oversize: () => {} },
    ...relayOverrides,
  });
  relay.start();
  return { ...pair, relay, input, output, logger };
}
