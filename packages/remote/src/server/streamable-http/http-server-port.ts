// The server side of one Streamable HTTP connection as a port of the relay core: POST bodies in, SSE streams out.
import type { Writable } from 'node:stream';
import { HIGH_WATER_BYTES, PauseReason, ReadGate } from '../../relay/flow-control.js';
import type { FrameLog } from '../../relay/frame-log.js';
import type { FramePort, PortClose } from '../../relay/frame-port.js';
import { NO_RELAY_METRICS, type RelayMetrics } from '../../relay/relay-metrics.js';
import { CloseCode } from '../../shared/constants.js';
import { ROUTE_WATCH, type RouteKeys } from '../../wire/route-keys.js';
import { type ResumeGap, RetentionBudget, SseStream, type SseStreamOwner } from './sse-stream.js';
import {
  CONNECTION_STREAM,
  DEFAULT_STREAM_ROUTE_LIMITS,
  type PostRouteRefusal,
  type StreamRouteLimits,
  StreamRoutes,
} from './stream-routes.js';

/** Options of {@link HttpServerPort}. */
export interface HttpServerPortOptions {
  /** `Acp-Connection-Id` (a random UUID). */
  readonly connectionId: string;
  readonly log: FrameLog;
  readonly metrics?: RelayMetrics;
  /** Sent events kept for `Last-Event-ID` (`resumeBufferBytes`, `resumeWindowMs`). */
  readonly retention: { readonly maxBytes: number; readonly windowMs: number };
  /** Keep-alive comment interval on attached streams (`pingIntervalMs`). */
  readonly keepAliveMs: number;
  /** A full port with no progress this long ends the connection (`stallTimeoutMs`; 0: never). */
  readonly stallTimeoutMs: number;
  /** No stream attached and no POST in progress this long ends the connection (the resume window). */
  readonly detachedTimeoutMs: number;
  /** Reads route keys from a frame the relay handed over without them (its own answers). */
  readonly routeKeysOf: (payload: Buffer | string) => RouteKeys;
  readonly routeLimits?: StreamRouteLimits;
  /** The connection ended because its client read nothing for `stallTimeoutMs` (a metric). */
  readonly onStalled?: () => void;
}

/** What the endpoint gets back for a POST it hands the port. */
export type PostOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: PostRouteRefusal | 'ended' };

/** What the endpoint gets back for a GET it hands the port. */
export type StreamOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: 'ended' | 'session-limit' }
  | { readonly ok: false; readonly refusal: 'gap'; readonly gap: ResumeGap };

/** How often a full port checks whether its client reads (a quarter of the stall timeout, within 25 ms–1 s). */
const stallSampleMs = (timeoutMs: number) => Math.max(25, Math.min(1_000, Math.floor(timeoutMs / 4)));

/**
 * One Streamable HTTP connection (`Acp-Connection-Id`) as a port of the relay core, beside `WebSocketPort` and
 * `LinePort`: the endpoint hands it each POSTed message ({@link post}) and each SSE GET ({@link attachStream}); the
 * relay (or the SDK stream of `serveAcp`) receives the messages and sends the agent's, which the port routes to the
 * connection stream or a session's stream ({@link StreamRoutes}) as numbered SSE events ({@link SseStream}).
 *
 * Flow control is the relay core's: the port is full while its streams hold more than the high-water mark (queued
 * events plus what their responses have not handed to the kernel), which pauses the agent's output; while full it
 * also stops taking POST bodies (`reading`, `OwnQueueFull`), so a client that does not read gets no more work, and
 * after `stallTimeoutMs` without progress the connection ends as a stalled WebSocket does. A connection nobody reads
 * from or posts to for `detachedTimeoutMs` ends too, so a client that vanishes without DELETE leaks no agent.
 *
 * States: `initializing` (the `initialize` POST waits for the agent's answer: {@link initialize}), `open`, `closing`
 * ({@link close}: streams deliver what they hold, then end with a comment naming the close), `ended`.
 */
export class HttpServerPort implements FramePort {
  readonly peer = 'client';
  readonly transport = 'streamable_http';
  /** Frames towards the client become SSE `data:` lines: no raw line break may survive. */
  readonly outboundRules = { singleLine: true } as const;
  /** The relay's scan of each frame it sends records what routing needs. */
  readonly routeWatch = ROUTE_WATCH;
  readonly reading: ReadGate;
  readonly closed: Promise<PortClose>;
  readonly metrics: RelayMetrics;
  private state: 'initializing' | 'open' | 'closing' | 'ended' = 'initializing';
  private readonly routes: StreamRoutes;
  private readonly streams = new Map<string, SseStream>();
  private readonly owner: SseStreamOwner;
  private handler: ((frame: Buffer) => void) | undefined;
  private initializeId: string | undefined;
  private resolveInitialized: ((response: Buffer | string) => void) | undefined;
  private readonly fullListeners: Array<() => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private draining = false;
  private readingWaiters: Array<() => void> = [];
  private postsInProgress = 0;
  private detachedTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private lastProgressAt = 0;
  private resolveClosed!: (close: PortClose) => void;
  private endedWith: PortClose | undefined;

  constructor(private readonly options: HttpServerPortOptions) {
    this.metrics = options.metrics ?? NO_RELAY_METRICS;
    this.routes = new StreamRoutes(options.routeLimits ?? DEFAULT_STREAM_ROUTE_LIMITS);
    const retention = new RetentionBudget(options.retention.maxBytes, options.retention.windowMs);
    this.owner = {
      retention,
      keepAliveMs: options.keepAliveMs,
      progressed: () => this.progressed(),
      receiverChanged: () => this.attachmentChanged(),
      streamEnded: () => this.streamEnded(),
    };
    this.reading = new ReadGate(
      () => {},
      () => {
        for (const waiter of this.readingWaiters.splice(0)) waiter();
      },
    );
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.armDetachedTimer();
  }

  get connectionId(): string {
    return this.options.connectionId;
  }

  get isOpen(): boolean {
    return this.state === 'initializing' || this.state === 'open';
  }

  /** Why the connection ended (for the 404 of a late request), once it has. */
  get endReason(): PortClose | undefined {
    return this.endedWith;
  }

  /** Bytes the streams hold for the client (queued events and unsent response buffers). */
  get bufferedAmount(): number {
    let bytes = 0;
    for (const stream of this.streams.values()) bytes += stream.pendingBytes;
    return bytes;
  }

  /** Bytes of sent events kept for `Last-Event-ID` (the retention budget). */
  get replayBytes(): number {
    return this.owner.retention.retainedBytes;
  }

  get isFull(): boolean {
    return this.bufferedAmount > HIGH_WATER_BYTES;
  }

  onFull(listener: () => void): void {
    this.fullListeners.push(listener);
  }

  whenDrained(callback: () => void): void {
    if (!this.isFull || this.state === 'ended') {
      queueMicrotask(callback);
      return;
    }
    this.drainWaiters.push(callback);
  }

  receive(handle: (frame: Buffer) => void): () => void {
    this.handler = handle;
    return () => {
      this.handler = undefined;
    };
  }

  /**
   * Resolves once the endpoint may read another POST body: at once unless the relay paused the port (the agent's
   * stdin is full, or the client reads none of its streams).
   */
  whenReading(): Promise<void> {
    if (!this.reading.isPaused || !this.isOpen) return Promise.resolve();
    return new Promise((resolve) => this.readingWaiters.push(resolve));
  }

  /** A POST is being read for this connection (it counts as the client being there). */
  postStarted(): () => void {
    this.postsInProgress += 1;
    this.attachmentChanged();
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.postsInProgress -= 1;
      this.attachmentChanged();
    };
  }

  /**
   * The `initialize` request that opened the connection, handed to the agent; resolves with the agent's answer (the
   * bytes it wrote), which the endpoint returns as the POST's body. Rejects when the connection ends first.
   */
  initialize(frame: Buffer, id: string): Promise<Buffer | string> {
    this.initializeId = id;
    const answered = new Promise<Buffer | string>((resolve, reject) => {
      this.resolveInitialized = resolve;
      void this.closed.then((close) =>
        reject(new Error(close.reason || `connection closed (${close.code})`)),
      );
    });
    this.metrics.received.count(frame);
    this.handler?.(frame);
    return answered;
  }

  /** One POSTed message (checked by the endpoint), with its route keys and the `Acp-Session-Id` header. */
  post(frame: Buffer, keys: RouteKeys, headerSession: string | undefined): PostOutcome {
    if (!this.isOpen) return { ok: false, refusal: 'ended' };
    const routed = this.routes.inbound(keys, headerSession);
    if (!routed.ok) return routed;
    this.metrics.received.count(frame);
    this.handler?.(frame);
    return { ok: true };
  }

  /**
   * Makes `response` (whose SSE head the endpoint sent) the reader of the connection stream (`session` undefined) or
   * of a session's stream, from `lastEventId` on when given.
   */
  attachStream(
    session: string | undefined,
    response: Writable,
    lastEventId: number | undefined,
    begin?: () => void,
  ): StreamOutcome {
    const key = session ?? CONNECTION_STREAM;
    // While closing, only a stream that still holds events for the client may be read.
    const closingStream = this.state === 'closing' ? this.streams.get(key) : undefined;
    if (
      this.state === 'ended' ||
      (this.state === 'closing' && (closingStream === undefined || closingStream.isEnded))
    )
      return { ok: false, refusal: 'ended' };
    if (session !== undefined && !this.routes.claimSession(session))
      return { ok: false, refusal: 'session-limit' };
    const attached = this.streamFor(key).attach(response, lastEventId, begin);
    return attached.ok ? attached : { ok: false, refusal: 'gap', gap: attached.gap };
  }

  send(payload: Buffer | string, keys?: RouteKeys): void {
    if (!this.isOpen) return;
    const route = keys ?? this.options.routeKeysOf(payload);
    if (this.state === 'initializing' && route.kind === 'response' && route.id === this.initializeId) {
      this.state = 'open';
      const resolve = this.resolveInitialized;
      this.resolveInitialized = undefined;
      resolve?.(payload);
      return;
    }
    this.metrics.sent.count(payload);
    this.streamFor(this.routes.outbound(route)).push(payload);
    if (this.isFull) this.full();
  }

  reply(text: string): void {
    this.send(text);
  }

  /** Nothing to do: the connection exists only once `initialize` was answered (the endpoint ends it otherwise). */
  markEstablished(): void {}

  /**
   * Ends the connection gracefully: nothing more is taken or sent, each stream delivers the events it holds and then
   * ends with a comment naming `code` and `reason` (`: closed 4000 agent process exited with code 0`), and
   * {@link closed} settles once every stream has. A stream the client does not read ends at the stall timeout (or
   * the detached timeout, when no stream is read at all). HTTP has no close handshake: this is the closing frame.
   */
  close(code: number, reason = ''): void {
    if (!this.isOpen) return;
    // Before initialize was answered nobody reads a stream yet: there is nothing to deliver.
    if (this.state === 'initializing') {
      this.terminate({ code, reason });
      return;
    }
    this.state = 'closing';
    this.endedWith = { code, reason };
    this.resolveInitialized = undefined;
    for (const waiter of this.readingWaiters.splice(0)) waiter();
    const comment = closingComment(this.endedWith);
    for (const stream of this.streams.values()) stream.finish(comment);
    this.streamEnded();
    if (this.state === 'closing') {
      this.lastProgressAt = performance.now();
      this.armStallTimer();
    }
  }

  /** The server stops: {@link close} with 1001, and everything ends at once when `hardStop` settles. */
  goAway(reason: string, hardStop: Promise<unknown>): void {
    this.close(CloseCode.GoingAway, reason);
    void hardStop.then(() => this.terminate({ code: CloseCode.GoingAway, reason }));
  }

  /** Ends the connection now: each stream ends with the closing comment, queued events are dropped. */
  terminate(close: PortClose = { code: CloseCode.GoingAway, reason: '' }): void {
    if (this.state === 'ended') return;
    this.endedWith ??= close;
    this.state = 'ended';
    clearTimeout(this.detachedTimer);
    clearInterval(this.stallTimer);
    const comment = closingComment(this.endedWith);
    for (const stream of this.streams.values()) stream.end(comment);
    this.drainWaiters.length = 0;
    for (const waiter of this.readingWaiters.splice(0)) waiter();
    this.resolveClosed(this.endedWith);
  }

  private streamEnded(): void {
    if (this.state !== 'closing') return;
    for (const stream of this.streams.values()) if (!stream.isEnded) return;
    this.terminate();
  }

  private streamFor(key: string): SseStream {
    let stream = this.streams.get(key);
    if (stream === undefined) {
      stream = new SseStream(key, this.owner);
      this.streams.set(key, stream);
    }
    return stream;
  }

  private full(): void {
    this.reading.pause(PauseReason.OwnQueueFull);
    if (this.draining) return;
    this.draining = true;
    this.lastProgressAt = performance.now();
    this.armStallTimer();
    for (const listener of this.fullListeners) listener();
  }

  private progressed(): void {
    this.lastProgressAt = performance.now();
    if (!this.draining || this.isFull || this.state === 'closing') return;
    this.draining = false;
    clearInterval(this.stallTimer);
    this.stallTimer = undefined;
    this.reading.resume(PauseReason.OwnQueueFull);
    for (const waiter of this.drainWaiters.splice(0)) waiter();
  }

  private armStallTimer(): void {
    const timeoutMs = this.options.stallTimeoutMs;
    if (timeoutMs <= 0 || this.stallTimer !== undefined) return;
    this.stallTimer = setInterval(() => {
      const stalledForMs = performance.now() - this.lastProgressAt;
      if (stalledForMs < timeoutMs) return;
      this.options.onStalled?.();
      this.options.log.logger.warn('connection closed: send stalled, the client stopped reading', {
        ...this.options.log.fields,
        stalledForMs: Math.round(stalledForMs),
        bufferedAmount: this.bufferedAmount,
      });
      this.terminate({
        code: CloseCode.PolicyViolation,
        reason: `send stalled: the peer read nothing for ${Math.round(stalledForMs)} ms`,
      });
    }, stallSampleMs(timeoutMs));
    this.stallTimer.unref();
  }

  private attachmentChanged(): void {
    let receivers = 0;
    for (const stream of this.streams.values()) if (stream.hasReceiver) receivers += 1;
    if (receivers > 0 || this.postsInProgress > 0) {
      clearTimeout(this.detachedTimer);
      this.detachedTimer = undefined;
    } else this.armDetachedTimer();
  }

  private armDetachedTimer(): void {
    if (this.state === 'ended' || this.detachedTimer !== undefined) return;
    // A closing connection whose client reads nothing is ended by the stall timer instead.
    const timeoutMs = this.options.detachedTimeoutMs;
    this.detachedTimer = setTimeout(() => {
      this.terminate({
        code: CloseCode.GoingAway,
        reason: `the client opened no stream and sent nothing for ${timeoutMs} ms`,
      });
    }, timeoutMs);
    this.detachedTimer.unref();
  }
}

/** The comment that ends every stream of a connection: `closed <code> <reason>` on one line. */
function closingComment(close: PortClose): string {
  return `closed ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
}
