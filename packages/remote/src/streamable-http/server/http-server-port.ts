// The server side of one Streamable HTTP connection as a port of the relay core: POST bodies in, SSE streams out.
import type { Writable } from 'node:stream';
import { HIGH_WATER_BYTES, PauseReason, ReadGate } from '../../relay/flow-control.js';
import type { FrameLog } from '../../relay/frame-log.js';
import type { FramePort, PortClose } from '../../relay/frame-port.js';
import { NO_RELAY_METRICS, type RelayMetrics } from '../../relay/relay-metrics.js';
import { reportStall, StallGuard, type StallProbe } from '../../relay/stall-guard.js';
import {
  type DetachedSession,
  MemorySessionKeeper,
  type SessionKeeper,
} from '../../sessions/session-keeper.js';
import { CloseCode } from '../../shared/constants.js';
import { TURN_STATE_EVENT, TURN_STATE_META_KEY } from '../../shared/durable-resume.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../../shared/errors.js';
import { SSE_CLOSE_FLUSH_MS } from '../../shared/fixed-limits.js';
import { transportLabel } from '../../shared/transport.js';
import { CURSOR_META_KEY, type CursorSlot, cursorNodesOf, readCursorSlot } from '../../wire/cursor-slot.js';
import { compileWatch, FrameScanner, type WatchSpec } from '../../wire/frame-scan.js';
import { InitializeAnswers } from '../../wire/initialize.js';
import type { RouteKeys } from '../../wire/route-keys.js';
import { type ResumeGap, RetentionBudget, SseStream, type SseStreamOwner } from './sse-stream.js';
import {
  CONNECTION_STREAM,
  DEFAULT_STREAM_ROUTE_LIMITS,
  type PostRouteRefusal,
  type StreamRouteLimits,
  StreamRoutes,
} from './stream-routes.js';
import { TurnStates } from './turn-states.js';

/**
 * What the port's relay records of each frame it sends: the route keys, and where the durable-resume cursor goes
 * (`params._meta` / `result._meta`, see {@link readCursorSlot}).
 */
export const STREAM_ROUTE_WATCH: WatchSpec = {
  id: true,
  method: true,
  params: { sessionId: true, _meta: { [CURSOR_META_KEY]: true } },
  result: { sessionId: true, _meta: { [CURSOR_META_KEY]: true } },
};
const STREAM_WATCH_NODE = compileWatch(STREAM_ROUTE_WATCH);
const STREAM_CURSOR_NODES = cursorNodesOf(STREAM_WATCH_NODE)!;

/** Options of {@link HttpServerPort}. */
export interface HttpServerPortOptions {
  /** `Acp-Connection-Id` (a random UUID). */
  readonly connectionId: string;
  readonly log: FrameLog;
  readonly metrics?: RelayMetrics;
  /** Sent events kept for `Last-Event-ID` (`resumeBufferBytes` plus one message, `resumeWindowMs`). */
  readonly retention: {
    readonly maxBytes: number;
    readonly windowMs: number;
    readonly messageBytes?: number;
  };
  /** Keep-alive comment interval on attached streams (`pingIntervalMs`). */
  readonly keepAliveMs: number;
  /** How long an ended stream's response may take to flush before it is destroyed (default `SSE_CLOSE_FLUSH_MS`). */
  readonly closeFlushMs?: number;
  /**
   * Events wait for a reader that takes none of them this long: the connection ends (1008), as a WebSocket whose
   * client reads nothing does (`stallTimeoutMs`, the relay's {@link StallGuard}; 0: never).
   */
  readonly stallTimeoutMs: number;
  /** After `initialize` was answered, no stream opened within this long ends the connection (nothing to keep). */
  readonly firstStreamTimeoutMs: number;
  /**
   * Once it had a reader, no stream read and no POST in progress this long ends the connection (the resume window);
   * meanwhile it waits in the server's {@link sessions}.
   */
  readonly detachedTimeoutMs: number;
  /** The server's session keeper (shared with the WebSocket's resume); none: a keeper of its own, unbounded. */
  readonly sessions?: SessionKeeper;
  /** Reads route keys from a frame the relay handed over without them (its own answers). */
  readonly routeKeysOf: (payload: Buffer | string) => RouteKeys;
  readonly routeLimits?: StreamRouteLimits;
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

/**
 * One Streamable HTTP connection (`Acp-Connection-Id`) as a port of the relay core, beside `WebSocketPort` and
 * `LinePort`: the endpoint hands it each POSTed message ({@link post}) and each SSE GET ({@link attachStream}); the
 * relay (or the SDK stream of `serveAcp`) receives the messages and sends the agent's, which the port routes to the
 * connection stream or a session's stream ({@link StreamRoutes}) as numbered SSE events ({@link SseStream}).
 *
 * Flow control is the relay core's: the port is full while its streams hold more than the high-water mark (queued
 * events plus what their responses have not handed to the kernel), which pauses the agent's output; while full it
 * also stops taking POST bodies (`reading`, `OwnQueueFull`), so a client that does not read gets no more work. The
 * relay's {@link StallGuard} watches the port as it watches a WebSocket's: events that wait on a reader that takes
 * none for `stallTimeoutMs` end the connection (1008). A client that vanishes without DELETE leaks no agent: a
 * connection whose first stream never opens ends after `firstStreamTimeoutMs`, and one whose readers all went away
 * waits among the server's detached sessions (bounded with the WebSocket's) for at most `detachedTimeoutMs`.
 *
 * States: `initializing` (the `initialize` POST waits for the agent's answer: {@link initialize}), `open`, `closing`
 * ({@link close}: streams deliver what they hold, then end with a comment naming the close), `ended`.
 */
export class HttpServerPort implements FramePort, StallProbe {
  readonly peer = 'client';
  readonly transport = 'streamable-http';
  /** Frames towards the client become SSE `data:` lines: no raw line break may survive. */
  readonly outboundRules = { singleLine: true } as const;
  /** The relay's scan of each frame it sends records what routing needs. */
  readonly routeWatch = STREAM_ROUTE_WATCH;
  readonly reading: ReadGate;
  readonly closed: Promise<PortClose>;
  readonly metrics: RelayMetrics;
  private state: 'initializing' | 'open' | 'closing' | 'ended' = 'initializing';
  private readonly routes: StreamRoutes;
  private readonly streams = new Map<string, SseStream>();
  private readonly owner: SseStreamOwner;
  private handler: ((frame: Buffer) => void) | undefined;
  /** The `initialize` that opened the connection, until the agent answers it. */
  private readonly handshake = new InitializeAnswers();
  private resolveInitialized: ((response: Buffer | string) => void) | undefined;
  private readonly fullListeners: Array<() => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private draining = false;
  private readingWaiters: Array<() => void> = [];
  private postsInProgress = 0;
  /** Receivers attached now, over every stream. */
  private receivers = 0;
  /** Whether a stream ever had a reader: from then on a connection without one waits as a detached session. */
  private everRead = false;
  /** Whether the loss of the last reader was logged (once per loss, not again after each POST meanwhile). */
  private interruptionLogged = false;
  /** Ends the connection when its first stream does not open in time. */
  private unattendedTimer: NodeJS.Timeout | undefined;
  /** What the server's session keeper holds while this connection waits there for its client. */
  private waiting: DetachedSession | undefined;
  private readonly sessions: SessionKeeper;
  private readonly stallGuard: StallGuard;
  /** Finds the cursor slot of a frame handed over without one (`serveAcp`'s messages, a policy's rewrite). */
  private cursorScanner: FrameScanner | undefined;
  /** Each session's turn, for the advisory a resumed session stream starts with. */
  private readonly turns = new TurnStates();
  private resolveClosed!: (close: PortClose) => void;
  private endedWith: PortClose | undefined;

  constructor(private readonly options: HttpServerPortOptions) {
    this.metrics = options.metrics ?? NO_RELAY_METRICS;
    this.sessions =
      options.sessions ??
      new MemorySessionKeeper({ maxDetached: Number.POSITIVE_INFINITY, logger: options.log.logger });
    this.routes = new StreamRoutes(options.routeLimits ?? DEFAULT_STREAM_ROUTE_LIMITS, () =>
      this.metrics.limitReached('pending_routes'),
    );
    const retention = new RetentionBudget(
      options.retention.maxBytes,
      options.retention.windowMs,
      options.retention.messageBytes,
    );
    this.owner = {
      retention,
      keepAliveMs: options.keepAliveMs,
      closeFlushMs: options.closeFlushMs ?? SSE_CLOSE_FLUSH_MS,
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
    // No reader took anything while events waited: logged, counted, ended with 1008 (no close frame to queue).
    this.stallGuard = new StallGuard(this, options.stallTimeoutMs, (kind, stalledForMs) =>
      this.terminate({
        code: CloseCode.PolicyViolation,
        reason: reportStall(this, options.log, kind, stalledForMs),
      }),
    );
    this.stallGuard.start();
    this.attachmentChanged();
  }

  get connectionId(): string {
    return this.options.connectionId;
  }

  get isOpen(): boolean {
    return this.state === 'initializing' || this.state === 'open';
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

  /** For the stall guard: events travel now (a stream has a reader; without one the connection waits, detached). */
  get isLive(): boolean {
    return this.state !== 'ended' && this.receivers > 0;
  }

  /** For the stall guard: whether POST bodies are taken now. */
  get isReading(): boolean {
    return !this.reading.isPaused;
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
    this.handshake.request(id);
    const answered = new Promise<Buffer | string>((resolve, reject) => {
      this.resolveInitialized = resolve;
      void this.closed.then((close) =>
        reject(
          new AcpRemoteError(
            AcpRemoteErrorCode.ConnectionClosed,
            close.reason || `connection closed (${close.code})`,
          ),
        ),
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
    this.turns.inbound(keys);
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
    const attached = this.streamFor(key).attach(response, lastEventId, begin, () =>
      session === undefined ? undefined : this.turnStateEvent(session),
    );
    return attached.ok ? attached : { ok: false, refusal: 'gap', gap: attached.gap };
  }

  send(payload: Buffer | string, keys?: RouteKeys): void {
    if (!this.isOpen) return;
    const route = keys ?? this.options.routeKeysOf(payload);
    if (this.state === 'initializing' && route.kind === 'response' && this.handshake.answers(route.id)) {
      this.state = 'open';
      const resolve = this.resolveInitialized;
      this.resolveInitialized = undefined;
      resolve?.(payload);
      return;
    }
    this.metrics.sent.count(payload);
    this.turns.outbound(route, payload);
    // The relay read the slot from its scan of these very bytes (none: an error answer, say); else scan them here.
    if ('cursorSlot' in route) this.streamFor(this.routes.outbound(route)).push(payload, route.cursorSlot);
    else this.pushScanned(payload, route);
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
    clearTimeout(this.unattendedTimer);
    this.unattendedTimer = undefined;
    this.stallGuard.stop();
    this.owner.retention.dispose();
    this.leaveDetached();
    const comment = closingComment(this.endedWith);
    for (const stream of this.streams.values()) stream.end(comment);
    this.drainWaiters.length = 0;
    for (const waiter of this.readingWaiters.splice(0)) waiter();
    this.resolveClosed(this.endedWith);
  }

  /**
   * The durable-resume draft's v1 turn-state advisory for a resumed session stream: an SSE event named
   * `acp/turnState`, without `id:` (it is not part of the stream's replay), whose data is
   * `{"_meta":{"acp/turnState":{...}}}`. Clients that read every event as a message (the SDK's) never resume, so
   * never see it.
   */
  private turnStateEvent(session: string): string {
    const advisory = JSON.stringify({ _meta: { [TURN_STATE_META_KEY]: this.turns.of(session) } });
    return `event: ${TURN_STATE_EVENT}\ndata: ${advisory}\n\n`;
  }

  /** Sends a frame whose cursor slot the relay did not find: one scan of its bytes finds it. */
  private pushScanned(payload: Buffer | string, route: RouteKeys): void {
    const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
    this.cursorScanner ??= new FrameScanner(STREAM_WATCH_NODE);
    const slot: CursorSlot | undefined = this.cursorScanner.scan(bytes)
      ? readCursorSlot(this.cursorScanner, STREAM_CURSOR_NODES)
      : undefined;
    this.streamFor(this.routes.outbound(route)).push(bytes, slot);
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
    for (const listener of this.fullListeners) listener();
  }

  private progressed(): void {
    if (!this.draining || this.isFull || this.state === 'closing') return;
    this.draining = false;
    this.reading.resume(PauseReason.OwnQueueFull);
    for (const waiter of this.drainWaiters.splice(0)) waiter();
  }

  /**
   * A reader or a POST came or went: with one, the connection is attended; without any, it ends after the
   * first-stream timeout (no stream ever read: nothing worth keeping) or waits as a detached session for at most the
   * detached timeout (a client that may come back with `Last-Event-ID`).
   */
  private attachmentChanged(): void {
    if (this.state === 'ended') return;
    let receivers = 0;
    for (const stream of this.streams.values()) if (stream.hasReceiver) receivers += 1;
    this.receivers = receivers;
    if (receivers > 0) {
      this.everRead = true;
      this.interruptionLogged = false;
    }
    if (receivers > 0 || this.postsInProgress > 0) {
      clearTimeout(this.unattendedTimer);
      this.unattendedTimer = undefined;
      this.leaveDetached();
      return;
    }
    if (this.unattendedTimer !== undefined || this.waiting !== undefined) return;
    if (!this.everRead) {
      const timeoutMs = this.options.firstStreamTimeoutMs;
      this.unattend(timeoutMs, `the client opened no event stream within ${timeoutMs} ms`);
      return;
    }
    const timeoutMs = this.options.detachedTimeoutMs;
    if (!this.interruptionLogged) {
      this.interruptionLogged = true;
      // The WebSocket's line for a dropped resumable session: one line to look for, whatever the transport.
      this.options.log.logger.info('connection interrupted; session kept for resume', {
        ...this.options.log.fields,
        transport: transportLabel(this.transport),
        windowMs: timeoutMs,
      });
    }
    this.waiting = {
      connection: (this.options.log.fields.connection as number | undefined) ?? this.connectionId,
      end: (cause, reason) => {
        this.waiting = undefined;
        this.terminate({
          code: CloseCode.GoingAway,
          reason:
            cause === 'expired' ? `the client opened no stream and sent nothing for ${timeoutMs} ms` : reason,
        });
      },
    };
    this.sessions.detach(this.waiting, timeoutMs);
  }

  /** Ends the connection (1001, `reason`) unless a reader or a POST comes within `timeoutMs`. */
  private unattend(timeoutMs: number, reason: string): void {
    this.unattendedTimer = setTimeout(() => {
      this.terminate({ code: CloseCode.GoingAway, reason });
    }, timeoutMs);
    this.unattendedTimer.unref();
  }

  private leaveDetached(): void {
    if (this.waiting === undefined) return;
    this.sessions.reattach(this.waiting);
    this.waiting = undefined;
  }
}

/** The comment that ends every stream of a connection: `closed <code> <reason>` on one line. */
function closingComment(close: PortClose): string {
  return `closed ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
}
