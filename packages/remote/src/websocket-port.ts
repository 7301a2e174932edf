import type { Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { CloseCode } from './constants.js';
import {
  HIGH_WATER_BYTES,
  PauseReason,
  type ReadGate,
  webSocketReadGate,
  whenDrained,
} from './flow-control.js';
import type { FrameLog } from './frame-log.js';
import { closeReason, inspectOversize, rawDataToBuffer } from './inbound.js';
import { type MessageCounter, NO_METRICS, type RelayMetrics } from './metrics.js';
import { tickCorker, underlyingSocket } from './write-batching.js';

const TEXT_FRAME = { binary: false } as const;
/** Fallback poll for a socket whose TCP stream is not reachable (never with the `ws` versions we support). */
const DRAIN_POLL_MS = 10;
/**
 * Answers the relay writes itself to a peer whose queue is already over the high-water mark, beyond which the peer
 * is closed: it sends messages that need answers and reads none. Legitimate traffic never gets near it (a peer
 * that reads nothing gets few answers before its queue stalls); it bounds what a hostile peer can make us hold.
 */
const REPLY_DEBT_LIMIT_BYTES = 4 * HIGH_WATER_BYTES;
/** How long a socket closed for not reading gets to flush its close frame before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/** Options of {@link WebSocketPort}. */
export interface WebSocketPortOptions {
  readonly maxMessageBytes: number;
  readonly log: FrameLog;
  /** Who is on the other end, for log lines (`client`, `remote`). */
  readonly peer: string;
  /**
   * Stop reading the socket while its own outbound queue is over the high-water mark, whatever filled it (relayed
   * output, the relay's answers, an SDK's responses): a server's rule for its clients, so a client that never reads
   * cannot make the server hold more than the mark. The mirror leaves it off towards its server: pausing both ends
   * of one WebSocket on a full queue could make each wait for the other.
   */
  readonly pauseWhenFull: boolean;
  /** What a server counts (messages, bytes, refused frames); default: nothing. */
  readonly metrics?: RelayMetrics;
}

/**
 * The WebSocket side of a relay: frames in (binary refused with 1003, oversize answered or closed with 1009, the
 * rest handed on as bytes), frames out (corked per event-loop turn, so many frames become one `writev`), the
 * outbound queue against the relays' high-water mark, and reading paused and resumed by reason.
 */
export class WebSocketPort {
  readonly reading: ReadGate;
  private readonly tcp: Writable | undefined;
  private readonly cork: () => void;
  private readonly fullListeners: Array<() => void> = [];
  private replyDebt = 0;
  private draining = false;
  private readonly metrics: RelayMetrics;
  // Per-message counting: a few integer adds when the server has metrics on, a no-op object otherwise (no branch).
  private readonly received: MessageCounter;
  private readonly sent: MessageCounter;

  constructor(
    readonly socket: WebSocket,
    private readonly options: WebSocketPortOptions,
  ) {
    this.metrics = options.metrics ?? NO_METRICS;
    this.received = this.metrics.received;
    this.sent = this.metrics.sent;
    this.tcp = underlyingSocket(socket);
    this.cork = tickCorker(this.tcp);
    this.reading = webSocketReadGate(socket);
  }

  get isOpen(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Whether the frames waiting to be sent are over the high-water mark (the peer reads slower than we send). */
  get isFull(): boolean {
    return this.socket.bufferedAmount > HIGH_WATER_BYTES;
  }

  /** Calls `listener` each time the outbound queue goes over the high-water mark (then `whenDrained` tells when it emptied). */
  onFull(listener: () => void): void {
    this.fullListeners.push(listener);
  }

  /**
   * Hands every inbound text frame within the size limit to `handle`, as bytes. Binary frames close the socket
   * with 1003; an oversized request whose id can be recovered is answered with an error carrying that id, any
   * other oversized message closes with 1009.
   */
  receive(handle: (frame: Buffer) => void): () => void {
    const { log, maxMessageBytes, peer } = this.options;
    const onMessage = (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        this.metrics.frameRefused(peer, 'binary');
        log.warn('closing connection', {
          code: CloseCode.UnsupportedData,
          reason: 'binary frames are not supported',
        });
        this.close(CloseCode.UnsupportedData, 'binary frames are not supported');
        return;
      }
      const frame = rawDataToBuffer(data);
      this.received.count(frame);
      if (frame.length <= maxMessageBytes) {
        handle(frame);
        return;
      }
      this.metrics.frameRefused(peer, 'oversize');
      const action = inspectOversize(frame, maxMessageBytes, frame.length);
      if (action.type === 'reply') {
        log.warn(`${peer} sent an ${action.note}`, { maxMessageBytes });
        this.reply(action.text);
      } else {
        log.warn('closing connection', { code: action.code, reason: action.reason });
        this.close(action.code, action.reason);
      }
    };
    this.socket.on('message', onMessage);
    return () => this.socket.off('message', onMessage);
  }

  /** Sends one text frame (the bytes of one JSON-RPC message). */
  send(payload: Buffer | string): void {
    if (!this.isOpen) return;
    this.cork();
    this.sent.count(payload);
    this.socket.send(payload, TEXT_FRAME);
    if (this.socket.bufferedAmount > HIGH_WATER_BYTES) this.full();
  }

  /** Sends an answer the relay writes itself (a JSON-RPC error for a refused frame, ...). */
  reply(text: string): void {
    if (!this.isOpen) return;
    if (this.isFull) {
      this.replyDebt += text.length;
      if (this.replyDebt > REPLY_DEBT_LIMIT_BYTES) {
        this.options.log.logger.warn(
          'closing connection: the peer sends messages that need answers and reads none',
          {
            ...this.options.log.fields,
            queuedBytes: this.socket.bufferedAmount,
          },
        );
        this.close(CloseCode.PolicyViolation, 'the peer reads none of the answers to what it sends');
        // The close frame queues behind everything the peer does not read: don't wait ws's 30 s for its answer.
        setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
        return;
      }
    }
    this.send(text);
  }

  /** Calls `callback` once everything queued has been handed to the kernel. */
  whenDrained(callback: () => void): void {
    if (this.tcp !== undefined) {
      whenDrained(this.tcp, callback);
      return;
    }
    const timer = setInterval(() => {
      if (this.socket.bufferedAmount > 0 && this.isOpen) return;
      clearInterval(timer);
      callback();
    }, DRAIN_POLL_MS);
    timer.unref();
  }

  /** Starts the close handshake (reason cut to the protocol's limit) unless the socket is already closing. */
  close(code: number, reason?: string): void {
    const { socket } = this;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
      socket.close(code, reason === undefined ? undefined : closeReason(reason));
    }
  }

  private full(): void {
    if (this.draining) return;
    this.draining = true;
    if (this.options.pauseWhenFull) this.reading.pause(PauseReason.OwnQueueFull);
    for (const listener of this.fullListeners) listener();
    this.whenDrained(() => {
      this.draining = false;
      this.replyDebt = 0;
      this.reading.resume(PauseReason.OwnQueueFull);
    });
  }
}
