// The relay core's seam to the network: what a transport's side of a connection (a FramePort) gives the relay and the
// SDK message stream. WebSocketPort, the Streamable HTTP server port and the Streamable HTTP client port implement it.

import type { Transport } from '../shared/transport.js';
import type { WatchSpec } from '../wire/frame-scan.js';
import type { FrameRules } from '../wire/inbound.js';
import type { RouteKeys } from '../wire/route-keys.js';
import type { ReadGate } from './flow-control.js';
import type { RelayMetrics } from './relay-metrics.js';

/** How a port's connection ended: the close code and reason of its (last) socket, or why the session ended. */
export interface PortClose {
  readonly code: number;
  readonly reason: string;
}

/**
 * How a port that reads the route keys of what it receives gets them from its consumer's scan instead of its own:
 * the consumer records `watch` in its check of each frame and hands the keys to `received` before relaying it.
 */
export interface InboundRoutes {
  /** The members the port reads of each received frame. */
  readonly watch: WatchSpec;
  /** Like {@link FramePort.receive}, for a consumer that calls {@link received} for every frame that passes its checks. */
  receive(handle: (frame: Buffer) => void): () => void;
  /** A received frame passed the consumer's checks; false when the port keeps it (it is not relayed). */
  received(keys: RouteKeys, frame: Buffer): boolean;
}

/**
 * The network side of one connection as the relay core sees it, whatever the transport: frames in (`receive`), frames
 * out (`send`, `reply`), one outbound queue against the relays' high-water mark (`isFull`, `onFull`, `whenDrained`),
 * reading paused and resumed by reason (`reading`), and the end of the connection (`closed`, `close`, `goAway`,
 * `terminate`). Close codes are the WebSocket's everywhere (4000 agent exited, 1001 going away, 1008, 1009, ...).
 *
 * A port that routes messages (Streamable HTTP: to the connection stream or a session's, with `Acp-Session-Id`)
 * names what it reads of each frame in `routeWatch`; the relay then records those members in its one scan of the
 * frame and hands `send` their values (`RouteKeys`). A port without it (WebSocket) never gets them, and its hot path
 * pays nothing for the feature.
 */
export interface FramePort {
  /** Who is on the other end (`client`, `remote`, `peer`): log label and metric sender. */
  readonly peer: string;
  /** Which transport it speaks (its metric label and log field: `transportLabel`). */
  readonly transport: Transport;
  /** Messages counted in each direction and frames refused (a no-op object when nothing is counted). */
  readonly metrics: RelayMetrics;
  /** Pauses and resumes reading what the peer sends. */
  readonly reading: ReadGate;
  /** Settles once, when the connection has ended (not when one socket or stream under it drops and comes back). */
  readonly closed: Promise<PortClose>;
  /** Whether frames can still be sent. */
  readonly isOpen: boolean;
  /** Bytes waiting for the peer (flow-control log lines, the server's `acpremote_buffered_bytes`). */
  readonly bufferedAmount: number;
  /**
   * Bytes kept after they were sent, so a peer that comes back gets what it missed: resume's replay buffer, or the
   * SSE events kept for `Last-Event-ID`; 0 where nothing is kept.
   */
  readonly replayBytes: number;
  /** Whether whatever feeds the port should wait: its outbound queue is over the high-water mark. */
  readonly isFull: boolean;
  /** What frames sent to this port must satisfy beyond their direction's rules (SSE: one line each). */
  readonly outboundRules?: Pick<FrameRules, 'singleLine'> | undefined;
  /** The members this port routes by: present only on ports that need {@link RouteKeys} in `send`. */
  readonly routeWatch?: WatchSpec | undefined;
  /**
   * Present on a port that keeps state from the route keys of the frames it receives (the client's `CarriedPort`):
   * a relay receives through it instead of {@link receive}, so a frame is scanned once, by the relay's own check.
   */
  readonly inboundRoutes?: InboundRoutes | undefined;
  /** Calls `listener` each time the port becomes full (then `whenDrained` tells when it has room again). */
  onFull(listener: () => void): void;
  /** Calls `callback` once the port has room again (at once when it has). */
  whenDrained(callback: () => void): void;
  /** Hands every inbound frame (one JSON-RPC message's bytes) to `handle`; returns what stops it. */
  receive(handle: (frame: Buffer) => void): () => void;
  /** Sends one frame; `route` carries what the port's `routeWatch` asked for, when it has one. */
  send(payload: Buffer | string, route?: RouteKeys): void;
  /** Sends an answer the relay writes itself (a JSON-RPC error for a refused frame, ...). */
  reply(text: string): void;
  /**
   * The agent answered `initialize`: the connection carries a conversation worth keeping for a resume from now on
   * (before, a drop ends it). A no-op on ports whose connection exists only once `initialize` was answered.
   */
  markEstablished(): void;
  /** Ends the connection gracefully (what is queued goes first), with a WebSocket close code and reason. */
  close(code: number, reason?: string): void;
  /** Ends the connection because the server stops (1001, `reason`); everything is cut when `hardStop` settles. */
  goAway(reason: string, hardStop: Promise<unknown>): void;
  /** Ends the connection now (shutdowns, deadlines). */
  terminate(close?: PortClose): void;
}
