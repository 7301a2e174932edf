// What the relay counts (RelayMetrics): per message, plain number fields of a MessageCounter the WebSocket port
// adds to, so a message costs a few integer adds and never a prom-client call; the server's metrics read them at
// scrape time.

/** Upper bounds (bytes) of the message-size histogram buckets: powers of 4 from 64 B to 16 MiB (the default limit). */
export const MESSAGE_SIZE_BUCKETS = [
  64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216,
] as const;
/** Slots {@link sizeBucket} can return for any size below 4 GiB; slots past the last bound count only in `+Inf`. */
const SIZE_SLOTS = 14;

/**
 * The histogram slot of a message of `bytes` bytes: 0 for ≤ 64 B, then one slot per factor of 4 (slot i holds sizes
 * in (64·4^(i-1), 64·4^i]). Integer arithmetic only: it runs once per relayed message.
 *
 * @example
 * ```ts
 * sizeBucket(64); // 0
 * sizeBucket(65); // 1 (≤ 256)
 * ```
 */
export function sizeBucket(bytes: number): number {
  return bytes <= 64 ? 0 : (33 - Math.clz32((bytes - 1) >>> 6)) >> 1;
}

/** Counts the messages of one direction: how many, their bytes, and their sizes by histogram slot. */
export interface MessageCounter {
  /** Counts one message (a WebSocket text frame). */
  count(payload: Buffer | string): void;
}

/** The counter of one direction when metrics are on: plain numbers, read at scrape time. */
export class CountingMessageCounter implements MessageCounter {
  messages = 0;
  bytes = 0;
  /** Messages per size slot (see {@link sizeBucket}); not cumulative. */
  readonly sizes = new Float64Array(SIZE_SLOTS);

  count(payload: Buffer | string): void {
    const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    this.messages += 1;
    this.bytes += bytes;
    this.sizes[sizeBucket(bytes)]! += 1;
  }
}

/** The counter of a connection without metrics: counts nothing (a null object, so the hot path has no branch). */
class DiscardingMessageCounter implements MessageCounter {
  count(_payload: Buffer | string): void {}
}

/** Shared by every port without metrics (the mirror, `connectAcp`, servers with metrics off). */
export const DISCARDED_MESSAGES: MessageCounter = new DiscardingMessageCounter();

/** Why a frame was refused, as a metric label. */
export type FrameRefusalReason = 'binary' | 'oversize' | 'invalid_utf8' | 'not_json_rpc' | 'protocol_error';

/**
 * A bound a peer ran into, as a metric label: `replay_buffer` (unacknowledged frames past the replay buffer's bound
 * were dropped), `reply_debt` (a peer closed for sending messages that need answers and reading none),
 * `pending_requests` (a request answered with an error because too many wait for answers), `detached_sessions` (a
 * parked session ended to make room for another).
 */
export type LimitName =
  | 'replay_buffer'
  | 'reply_debt'
  | 'pending_requests'
  | 'detached_sessions'
  | 'event_streams'
  | 'http_bodies'
  | 'pending_routes';

/** What the relay core counts: messages in each direction of the WebSocket and the frames it refused. */
export interface RelayMetrics {
  /** Text frames read from the WebSocket peer. */
  readonly received: MessageCounter;
  /** Text frames written to the WebSocket peer (relayed messages and the relay's own answers). */
  readonly sent: MessageCounter;
  /** A frame refused: `sender` is the direction's log label (`client`, `agent`). */
  frameRefused(sender: string, reason: FrameRefusalReason): void;
  /** A peer ran into one of the relay's bounds. */
  limitReached(limit: LimitName): void;
  /** A connection closed because it made no progress for `stallTimeoutMs`. */
  sendStallClosed(): void;
}

/** The relay metrics of a port without metrics (the mirror, `connectAcp`): counts nothing. */
export const NO_RELAY_METRICS: RelayMetrics = Object.freeze({
  received: DISCARDED_MESSAGES,
  sent: DISCARDED_MESSAGES,
  frameRefused() {},
  limitReached() {},
  sendStallClosed() {},
});
