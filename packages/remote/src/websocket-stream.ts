import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { WebSocket } from 'ws';
import { CloseCode } from './constants.js';
import { closeReason, parseWebSocketMessage } from './inbound.js';
import type { RemoteLogger } from './logger.js';
import { tickCorker, underlyingSocket } from './write-batching.js';

const SEND_HIGH_WATER_BYTES = 1024 * 1024;
const READ_QUEUE_MESSAGES = 64;

/** Options of {@link webSocketMessageStream}. */
export interface WebSocketMessageStreamOptions {
  maxMessageBytes: number;
  logger: RemoteLogger;
  fields?: Record<string, unknown>;
}

/**
 * Wraps an open `ws` socket as an SDK `Stream` of JSON-RPC objects, with the same inbound rules as the relays
 * (binary → 1003, oversize → error answer or 1009, garbage → JSON-RPC error) and backpressure both ways: the socket
 * is paused while the readable's queue is full, and writes wait while the socket's send buffer is high.
 * Closing the writable closes the socket (the SDK never propagates close by itself).
 */
export function webSocketMessageStream(socket: WebSocket, options: WebSocketMessageStreamOptions): Stream {
  const { maxMessageBytes, logger, fields } = options;
  let readableController: ReadableStreamDefaultController<AnyMessage> | undefined;
  let paused = false;
  let finished = false;
  const readable = new ReadableStream<AnyMessage>(
    {
      start(controller) {
        readableController = controller;
      },
      pull() {
        if (paused && socket.readyState === socket.OPEN) {
          paused = false;
          socket.resume();
        }
      },
      cancel() {
        finished = true;
        if (socket.readyState === socket.OPEN) socket.close(CloseCode.Normal);
      },
    },
    { highWaterMark: READ_QUEUE_MESSAGES },
  );

  socket.on('message', (data, isBinary) => {
    if (finished) return;
    const action = parseWebSocketMessage(data, isBinary, maxMessageBytes);
    switch (action.type) {
      case 'forward':
        readableController?.enqueue(action.message as AnyMessage);
        if (!paused && (readableController?.desiredSize ?? 1) <= 0) {
          paused = true;
          socket.pause();
        }
        return;
      case 'reply':
        logger.warn(action.note, fields);
        socket.send(action.text);
        return;
      case 'close':
        logger.warn('closing connection', { ...fields, code: action.code, reason: action.reason });
        socket.close(action.code, closeReason(action.reason));
        return;
    }
  });
  socket.once('close', () => {
    if (finished) return;
    finished = true;
    try {
      readableController?.close();
    } catch {
      // already closed or errored
    }
  });

  const corkSocket = tickCorker(underlyingSocket(socket));
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (socket.readyState !== socket.OPEN) throw new Error('WebSocket is closed');
      const text = JSON.stringify(message);
      corkSocket();
      // While the send buffer is small, return at once (no Promise per message) so small messages are not
      // serialised on the network; past the high-water mark, wait until this message has been written.
      if (socket.bufferedAmount + text.length <= SEND_HIGH_WATER_BYTES) {
        socket.send(text);
        return;
      }
      return new Promise<void>((resolve, reject) => {
        socket.send(text, (error) => (error ? reject(error) : resolve()));
      });
    },
    close() {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
        socket.close(CloseCode.Normal);
    },
    abort() {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
        socket.close(CloseCode.InternalError, 'stream aborted');
      }
    },
  });
  return { readable, writable };
}
