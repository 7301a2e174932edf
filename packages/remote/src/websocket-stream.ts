import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { WebSocket } from 'ws';
import { CloseCode } from './constants.js';
import { PauseReason } from './flow-control.js';
import { FrameLog } from './frame-log.js';
import { refusalReply } from './inbound.js';
import { errorResponseText, parseFrame } from './json-rpc.js';
import type { RemoteLogger } from './logger.js';
import { NO_METRICS, type RelayMetrics } from './metrics.js';
import { WebSocketPort } from './websocket-port.js';

const READ_QUEUE_MESSAGES = 64;

/** Options of {@link webSocketMessageStream}. */
export interface WebSocketMessageStreamOptions {
  maxMessageBytes: number;
  logger: RemoteLogger;
  fields?: Record<string, unknown>;
  /** Server side: stop reading a client whose outbound queue is over the high-water mark. */
  pauseWhenFull?: boolean;
  /** Who is on the other end, for log lines and metric labels (default `peer`; servers say `client`). */
  peer?: string;
  /** What a server counts (messages, bytes, refused frames); default: nothing. */
  metrics?: RelayMetrics;
}

/**
 * Wraps an open `ws` socket as an SDK `Stream` of JSON-RPC objects, on the relay core's WebSocket port: the same
 * inbound rules as the relays (binary → 1003, oversize → error answer or 1009, garbage → JSON-RPC error) and the
 * same backpressure both ways (the socket is paused while the readable's queue is full, writes wait while the
 * socket's queue is over the high-water mark). Closing the writable closes the socket (the SDK never propagates
 * close by itself). A message the SDK hands over that JSON cannot express (nested too deep for `JSON.stringify`)
 * becomes an error response when it is a response, so the peer gets an answer instead of a dead connection.
 */
export function webSocketMessageStream(socket: WebSocket, options: WebSocketMessageStreamOptions): Stream {
  const { maxMessageBytes, logger, fields } = options;
  const log = new FrameLog(logger, fields);
  const peer = options.peer ?? 'peer';
  const metrics = options.metrics ?? NO_METRICS;
  const port = new WebSocketPort(socket, {
    maxMessageBytes,
    log,
    peer,
    pauseWhenFull: options.pauseWhenFull === true,
    metrics,
  });
  let readableController: ReadableStreamDefaultController<AnyMessage> | undefined;
  let finished = false;
  const readable = new ReadableStream<AnyMessage>(
    {
      start(controller) {
        readableController = controller;
      },
      pull() {
        port.reading.resume(PauseReason.TargetFull);
      },
      cancel() {
        finished = true;
        port.close(CloseCode.Normal);
      },
    },
    { highWaterMark: READ_QUEUE_MESSAGES },
  );

  const stopReceiving = port.receive((frame) => {
    if (finished) return;
    // The SDK needs objects: parsing is the one look this direction takes at a frame.
    const parsed = parseFrame(frame.toString('utf8'));
    if (!parsed.ok) {
      metrics.frameRefused(peer, 'not_json_rpc');
      const { text, note } = refusalReply(parsed);
      log.warn(note);
      port.reply(text);
      return;
    }
    readableController?.enqueue(parsed.message as AnyMessage);
    if ((readableController?.desiredSize ?? 1) <= 0) port.reading.pause(PauseReason.TargetFull);
  });
  socket.once('close', () => {
    stopReceiving();
    if (finished) return;
    finished = true;
    try {
      readableController?.close();
    } catch {
      // already closed or errored
    }
  });

  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (!port.isOpen) throw new Error('WebSocket is closed');
      port.send(serialise(message, log));
      // While the queue is small, return at once (no Promise per message) so small messages are not serialised on
      // the network; past the high-water mark, wait until it has been written out.
      if (!port.isFull) return;
      return new Promise<void>((resolve) => port.whenDrained(resolve));
    },
    close() {
      port.close(CloseCode.Normal);
    },
    abort() {
      port.close(CloseCode.InternalError, 'stream aborted');
    },
  });
  return { readable, writable };
}

/**
 * JSON text of a message. A response too deep for `JSON.stringify` (the SDK echoes an invalid message back as the
 * `data` of its error) is still answered: an error keeps its code and message with a note in place of `data`, a
 * result becomes an internal error; both keep the id.
 */
function serialise(message: AnyMessage, log: FrameLog): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    const envelope = message as {
      id?: unknown;
      method?: unknown;
      error?: { code?: unknown; message?: unknown };
    };
    const id = envelope.id;
    const isResponse =
      envelope.method === undefined && (typeof id === 'string' || typeof id === 'number' || id === null);
    if (!(error instanceof RangeError) || !isResponse) throw error;
    log.warn('a response is nested too deeply to serialise; sent an error without its data instead');
    const data = { note: 'data omitted: nested too deeply to serialise' };
    const { code, message: text } = envelope.error ?? {};
    return errorResponseText(
      JSON.stringify(id),
      typeof code === 'number' && typeof text === 'string'
        ? new RequestError(code, text, data)
        : RequestError.internalError(data),
    );
  }
}
