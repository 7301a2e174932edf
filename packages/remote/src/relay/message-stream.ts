// An SDK Stream of JSON-RPC objects on a FramePort, WebSocket or Streamable HTTP (serveAcp, connectAcp).
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { CloseCode } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { refusalReply } from '../wire/inbound.js';
import { classifyMessage, errorResponseText, parseFrame, type WireId, wireErrors } from '../wire/json-rpc.js';
import { routeKeysOf } from '../wire/route-keys.js';
import { PauseReason } from './flow-control.js';
import type { FrameLog } from './frame-log.js';
import type { FramePort } from './frame-port.js';
import { PendingRequests } from './pending-requests.js';

const READ_QUEUE_MESSAGES = 64;

/** An SDK `Stream` on a port, and what it counts. */
export interface MessageStream extends Stream {
  /** Requests from the peer that wait for the SDK app's answer now. */
  readonly pendingRequests: number;
}

/** Options of {@link messageStream}. */
export interface MessageStreamOptions {
  /** Requests from the peer that may wait for an answer at once; one more is answered with an error at once. */
  readonly maxPendingRequests: number;
  /** Called when the app answers a request (`method` is the request's), e.g. to learn `initialize` was answered. */
  readonly answered?: (method: string) => void;
}

/**
 * Wraps a port (WebSocket or Streamable HTTP) as an SDK `Stream` of JSON-RPC objects: the same inbound rules as the relays (binary →
 * 1003, oversize → error answer or 1009, garbage → JSON-RPC error) and the same backpressure both ways (the socket is
 * paused while the readable's queue is full, writes wait while the port is full). What the app can be made to hold
 * is bounded: at most `maxPendingRequests` requests from the peer wait for its answer (one more is answered here, at
 * once, with `tooManyPendingRequests`), and a message the SDK would only answer with -32600 (not a request, a
 * notification nor a response) is answered here too, so such answers go through the port's reply bound rather than
 * pile up in the SDK's write queue. Closing the writable closes the port (the SDK never propagates close by itself);
 * the readable ends when the port has ended (with resume, not at a drop). A message the SDK hands over that JSON
 * cannot express (nested too deep for `JSON.stringify`) becomes an error response when it is a response, so the peer
 * gets an answer instead of a dead connection.
 */
export function messageStream(port: FramePort, log: FrameLog, options: MessageStreamOptions): MessageStream {
  const pending = new PendingRequests(options.maxPendingRequests);
  // A port that routes gets each message's route keys, read from the object (no scan).
  const routes = port.routeWatch !== undefined;
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
      port.metrics.frameRefused(port.peer, 'not_json_rpc');
      const { text, note } = refusalReply(parsed);
      log.warn(note);
      port.reply(text);
      return;
    }
    const message = parsed.message;
    const kind = classifyMessage(message);
    if (kind === 'invalid') {
      port.metrics.frameRefused(port.peer, 'not_json_rpc');
      log.warn('invalid message (not a JSON-RPC request, notification or response)');
      port.reply(serialise(invalidRequestAnswer(message), log));
      return;
    }
    if (kind === 'request' && !pending.admit(message.id as WireId, message.method as string)) {
      port.metrics.limitReached('pending_requests');
      log.warn('too many requests waiting for an answer; answered one with an error', {
        maxPendingRequests: pending.limit,
      });
      port.reply(
        errorResponseText(JSON.stringify(message.id), wireErrors.tooManyPendingRequests(pending.limit)),
      );
      return;
    }
    readableController?.enqueue(message as AnyMessage);
    if ((readableController?.desiredSize ?? 1) <= 0) port.reading.pause(PauseReason.TargetFull);
  });
  void port.closed.then(() => {
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
      if (!port.isOpen)
        throw new AcpRemoteError(
          AcpRemoteErrorCode.ConnectionClosed,
          port.transport === 'websocket' ? 'WebSocket is closed' : 'the connection is closed',
        );
      const outgoing = message as { id?: WireId; method?: unknown };
      if (outgoing.method === undefined && outgoing.id !== undefined) {
        const method = pending.answered(outgoing.id);
        if (method !== undefined) options.answered?.(method);
      }
      // Encoded once, here: the port counts, writes and (for a resume) keeps these bytes until they are acknowledged.
      // Handed a string, it would measure and encode it again at each step and keep it in V8's heap meanwhile, where
      // a 16 MiB one counts in the live size that sets when the next full collection runs.
      port.send(
        Buffer.from(serialise(message, log)),
        routes ? routeKeysOf(message as Record<string, unknown>) : undefined,
      );
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
  return {
    readable,
    writable,
    get pendingRequests() {
      return pending.size;
    },
  };
}

/** The SDK's answer to a message that is not a request, a notification nor a response: -32600, id null. */
function invalidRequestAnswer(message: Record<string, unknown>): AnyMessage {
  const { code, message: text, data } = wireErrors.invalidRequest(message);
  return { jsonrpc: '2.0', id: null, error: { code, message: text, data } } as AnyMessage;
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
        ? { code, message: text, data }
        : wireErrors.internalError(data),
    );
  }
}
