// messageStream's outbound side: what the port is handed for each message the SDK app writes.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { ReadGate } from './flow-control.js';
import { FrameLog } from './frame-log.js';
import type { FramePort } from './frame-port.js';
import { messageStream } from './message-stream.js';
import { NO_RELAY_METRICS } from './relay-metrics.js';

/** A port that records what it is sent, always open and never full. */
function recordingPort(): { port: FramePort; sent: Array<Buffer | string> } {
  const sent: Array<Buffer | string> = [];
  const port: FramePort = {
    peer: 'client',
    transport: 'websocket',
    metrics: NO_RELAY_METRICS,
    reading: new ReadGate(
      () => {},
      () => {},
    ),
    closed: new Promise(() => {}),
    isOpen: true,
    bufferedAmount: 0,
    replayBytes: 0,
    isFull: false,
    onFull: () => {},
    whenDrained: (callback) => callback(),
    receive: () => () => {},
    send: (payload) => sent.push(payload),
    reply: (text) => sent.push(text),
    markEstablished: () => {},
    close: () => {},
    goAway: () => {},
    terminate: () => {},
  };
  return { port, sent };
}

describe('messageStream', () => {
  it('hands the port each message once encoded, as the UTF-8 bytes of its JSON (not a string to measure and encode again)', async () => {
    const { port, sent } = recordingPort();
    const stream = messageStream(port, new FrameLog(silentLogger), { maxPendingRequests: 8 });
    const message = { jsonrpc: '2.0', method: 'session/update', params: { text: 'größer ✓ 🚀' } } as const;
    const writer = stream.writable.getWriter();
    await writer.write(message);
    expect(sent).toHaveLength(1);
    expect(Buffer.isBuffer(sent[0])).toBe(true);
    expect(sent[0]).toEqual(Buffer.from(JSON.stringify(message), 'utf8'));
  });
});
