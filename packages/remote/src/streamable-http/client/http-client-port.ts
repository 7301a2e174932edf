// The client side of one Streamable HTTP connection as a port of the relay core: messages out as ordered POSTs,
// messages in from the connection's SSE streams, reopened with Last-Event-ID when they drop.
import type { IncomingMessage } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConnectionEvent } from '../../options/connection-events.js';
import { HIGH_WATER_BYTES, ReadGate } from '../../relay/flow-control.js';
import type { FrameLog } from '../../relay/frame-log.js';
import type { FramePort, PortClose } from '../../relay/frame-port.js';
import { NO_RELAY_METRICS, type RelayMetrics } from '../../relay/relay-metrics.js';
import { reportStall, StallGuard, type StallProbe } from '../../relay/stall-guard.js';
import { CloseCode } from '../../shared/constants.js';
import { type ResumableRetention, readAdvertisedRetention } from '../../shared/durable-resume.js';
import { ResumeRefusedError } from '../../shared/errors.js';
import { checkInitialize } from '../../wire/initialize.js';
import { errorResponseText, wireErrors } from '../../wire/json-rpc.js';
import { ROUTE_WATCH, type RouteKeys } from '../../wire/route-keys.js';
import {
  CONNECTION_ID_HEADER,
  JSON_MEDIA_TYPE,
  RESUME_WINDOW_HEADER,
  SESSION_ID_HEADER,
} from '../protocol.js';
import { EventStreams } from './event-streams.js';
import { type HttpExchange, readResponseBody, refusalText } from './http-exchange.js';

/** Statuses of a POST that mean the connection itself is gone or refused (the TS SDK client's list). */
const CONNECTION_FAILURES = new Set([401, 403, 404, 410]);
/** How long a closing client waits for its DELETE before it gives up on it. */
const DELETE_TIMEOUT_MS = 5_000;

/** Options of {@link HttpClientPort}. */
export interface HttpClientPortOptions {
  readonly exchange: HttpExchange;
  /** The endpoint as messages show it (credentials and query values redacted). */
  readonly shownUrl: string;
  readonly maxMessageBytes: number;
  readonly log: FrameLog;
  /** Who is on the other end, for log lines (`remote`, `peer`). */
  readonly peer: string;
  readonly pingIntervalMs: number;
  /**
   * A server that takes none of the queued messages (a POST not answered) for this long ends the connection (1008,
   * logged), as a WebSocket server that reads nothing does (the relay's {@link StallGuard}; 0: never).
   */
  readonly stallTimeoutMs: number;
  readonly onConnectionEvent?: ((event: ConnectionEvent) => void) | undefined;
  /** Reads the route keys of a message (the port's own scan: events it receives, answers the relay writes). */
  readonly routeKeysOf: (payload: Buffer | string) => RouteKeys;
}

interface QueuedMessage {
  readonly payload: Buffer | string;
  readonly keys: RouteKeys;
  readonly bytes: number;
}

/**
 * One Streamable HTTP connection from the client's side, as a port of the relay core beside `WebSocketPort` (the
 * mirror's and `connectAcp`'s other transport). The first message must be `initialize`: it is POSTed without a
 * connection id and its answer (200, `Acp-Connection-Id`) opens the connection and its connection stream. Every
 * later message is POSTed in order, one at a time (the agent must see the editor's order, and HTTP/1.1 orders
 * nothing across sockets), with `Acp-Session-Id` when it belongs to a session; a session's stream is opened as soon
 * as a message names the session. What the server sends arrives on the streams and is handed to `receive`.
 *
 * A stream that drops while the connection is open is reopened with `Last-Event-ID` (backoff up to 5 s, within the
 * server's resume window), so a server that keeps events (ours) replays what was missed; `onConnectionEvent` is told
 * as for a WebSocket resume. A POST the server refuses fails that request only (a JSON-RPC error naming the status),
 * except 401, 403, 404 and 410, which end the connection. Closing sends the queued messages, then DELETE. The relay's
 * {@link StallGuard} watches the queue once `initialize` was answered: no POST answered for `stallTimeoutMs` while
 * messages wait ends the connection (1008).
 */
export class HttpClientPort implements FramePort, StallProbe {
  readonly transport = 'streamable-http';
  readonly reading: ReadGate;
  readonly closed: Promise<PortClose>;
  readonly metrics: RelayMetrics = NO_RELAY_METRICS;
  /** Frames towards the server are POST bodies: they may keep their line breaks. */
  readonly outboundRules = undefined;
  /** The relay's scan of each frame it sends records what the POST's headers need. */
  readonly routeWatch = ROUTE_WATCH;
  private state: 'idle' | 'initializing' | 'open' | 'closing' | 'ended' = 'idle';
  private connectionId: string | undefined;
  private resumeWindowMs = 0;
  /** What `initialize` advertised (the durable-resume draft's `transport.resumable`). */
  private advertised: ResumableRetention | undefined;
  private handler: ((frame: Buffer) => void) | undefined;
  private readonly queue: QueuedMessage[] = [];
  private queuedBytes = 0;
  private posting = false;
  private readonly streams: EventStreams;
  private readonly fullListeners: Array<() => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private wasFull = false;
  private closeAfterQueue: PortClose | undefined;
  private finished = false;
  private readonly stallGuard: StallGuard;
  private resolveClosed!: (close: PortClose) => void;

  constructor(private readonly options: HttpClientPortOptions) {
    // No POST answered while messages waited: logged, then ended with 1008 (HTTP has no close frame to send).
    this.stallGuard = new StallGuard(this, options.stallTimeoutMs, (kind, stalledForMs) =>
      this.finish({
        code: CloseCode.PolicyViolation,
        reason: reportStall(this, options.log, kind, stalledForMs),
      }),
    );
    this.reading = new ReadGate(
      () => this.streams.pause(),
      () => this.streams.resume(),
    );
    // The streams see the connection through this view (its state is the port's own, read when they need it).
    const port = this;
    this.streams = new EventStreams({
      options,
      get state() {
        return port.state;
      },
      get connectionId() {
        return port.connectionId;
      },
      get isOpen() {
        return port.isOpen;
      },
      get resumable() {
        return port.resumable;
      },
      get resumeWindowMs() {
        return port.resumeWindowMs;
      },
      get advertised() {
        return port.advertised;
      },
      reading: this.reading,
      deliver: (frame) => this.deliver(frame),
      notify: (event) => this.notify(event),
      resumeFailed: (reason, message, code) => this.resumeFailed(reason, message, code),
      finish: (close) => this.finish(close),
    });
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  get peer(): string {
    return this.options.peer;
  }

  get isOpen(): boolean {
    return this.state !== 'closing' && this.state !== 'ended';
  }

  /**
   * Whether the server keeps its streams' events for `Last-Event-ID` (known once `initialize` was answered): it
   * advertised `transport.resumable` (the durable-resume draft) or, an older ACP Kit server, `Acpkit-Resume-Window-Ms`.
   */
  get resumable(): boolean {
    return this.resumeWindowMs > 0;
  }

  /** What the server advertised in `initialize` (`transport.resumable`), if anything. */
  get retention(): ResumableRetention | undefined {
    return this.advertised;
  }

  /** Bytes of messages waiting to be POSTed. */
  get bufferedAmount(): number {
    return this.queuedBytes;
  }

  /**
   * For the stall guard: messages travel now (`initialize` answered; before, its POST waits for the agent's answer,
   * which the server bounds itself).
   */
  get isLive(): boolean {
    return this.state === 'open' || this.state === 'closing';
  }

  /** For the stall guard: whether the streams are read now. */
  get isReading(): boolean {
    return !this.reading.isPaused;
  }

  /** Nothing is kept after it was POSTed (the server answers each POST). */
  get replayBytes(): number {
    return 0;
  }

  get isFull(): boolean {
    return this.queuedBytes > HIGH_WATER_BYTES;
  }

  onFull(listener: () => void): void {
    this.fullListeners.push(listener);
  }

  whenDrained(callback: () => void): void {
    if (!this.isFull || this.state === 'ended') queueMicrotask(callback);
    else this.drainWaiters.push(callback);
  }

  receive(handle: (frame: Buffer) => void): () => void {
    this.handler = handle;
    return () => {
      this.handler = undefined;
    };
  }

  send(payload: Buffer | string, keys?: RouteKeys): void {
    if (!this.isOpen) return;
    const routeKeys = keys ?? this.options.routeKeysOf(payload);
    const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (this.state === 'idle') {
      if (routeKeys.kind !== 'request' || checkInitialize(routeKeys.method, routeKeys.id).kind === 'other') {
        this.answerLocally(
          routeKeys,
          'the first message on an ACP Streamable HTTP connection must be initialize',
        );
        return;
      }
      this.state = 'initializing';
    }
    this.queue.push({ payload, keys: routeKeys, bytes });
    this.queuedBytes += bytes;
    if (this.isFull && !this.wasFull) {
      this.wasFull = true;
      for (const listener of this.fullListeners) listener();
    }
    void this.pump();
  }

  reply(text: string): void {
    this.send(text);
  }

  /** A server's concern (which sessions to keep); nothing to do on a client. */
  markEstablished(): void {}

  /** Sends what is queued, then ends the connection (DELETE) and settles {@link closed} with `code` and `reason`. */
  close(code: number, reason = ''): void {
    if (!this.isOpen) return;
    this.closeAfterQueue = { code, reason };
    if (this.state === 'idle') {
      this.finish({ code, reason });
      return;
    }
    this.state = 'closing';
    void this.pump();
  }

  goAway(reason: string, hardStop: Promise<unknown>): void {
    this.close(CloseCode.GoingAway, reason);
    void hardStop.then(() => this.terminate({ code: CloseCode.GoingAway, reason }));
  }

  /** Ends the connection now (no DELETE: the server's window ends it). */
  terminate(close: PortClose = { code: CloseCode.GoingAway, reason: '' }): void {
    this.finish(close);
  }

  // ---- sending ---------------------------------------------------------------------------------------------------

  private async pump(): Promise<void> {
    if (this.posting) return;
    this.posting = true;
    try {
      while (this.queue.length > 0 && this.state !== 'ended') {
        const message = this.queue.shift()!;
        if (this.connectionId === undefined) await this.postInitialize(message);
        else await this.post(message);
        this.queuedBytes -= message.bytes;
        if (this.wasFull && !this.isFull) {
          this.wasFull = false;
          for (const waiter of this.drainWaiters.splice(0)) waiter();
        }
      }
    } finally {
      this.posting = false;
    }
    if (this.state === 'closing' && this.queue.length === 0) await this.deleteConnection();
  }

  private async postInitialize(message: QueuedMessage): Promise<void> {
    const response = await this.request('POST', message.payload, {});
    if (response === undefined) return;
    const status = response.statusCode ?? 0;
    const connectionId = response.headers[CONNECTION_ID_HEADER.toLowerCase()];
    if (status !== 200 || typeof connectionId !== 'string' || connectionId === '') {
      const explanation =
        status === 200
          ? `the server at ${this.options.shownUrl} answered initialize without ${CONNECTION_ID_HEADER}: it is not an ACP Streamable HTTP server`
          : await refusalText(this.options.shownUrl, 'initialize', response);
      this.finish({ code: CloseCode.PolicyViolation, reason: explanation });
      return;
    }
    this.connectionId = connectionId;
    const window = Number(response.headers[RESUME_WINDOW_HEADER.toLowerCase()]);
    this.resumeWindowMs = Number.isSafeInteger(window) && window > 0 ? window : 0;
    let body: Buffer;
    try {
      const read = await readResponseBody(response, this.options.maxMessageBytes);
      if (read.truncated) {
        const limit = this.options.maxMessageBytes;
        this.finish({
          code: CloseCode.MessageTooBig,
          reason: `the initialize answer exceeds the ${limit}-byte limit`,
        });
        return;
      }
      body = read.body;
    } catch (error) {
      this.finish({ code: CloseCode.MessageTooBig, reason: (error as Error).message });
      return;
    }
    this.advertised = advertisedIn(body);
    if (this.advertised !== undefined)
      this.resumeWindowMs = Math.max(this.resumeWindowMs, this.advertised.retentionSeconds * 1000);
    if (this.state === 'initializing') this.state = 'open';
    this.stallGuard.start();
    this.streams.open(undefined);
    this.deliver(body);
  }

  private async post(message: QueuedMessage): Promise<void> {
    const session = this.sessionOf(message.keys);
    if (session !== undefined) this.streams.open(session);
    const response = await this.request('POST', message.payload, {
      [CONNECTION_ID_HEADER]: this.connectionId!,
      ...(session !== undefined ? { [SESSION_ID_HEADER]: session } : {}),
    });
    if (response === undefined) return;
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      response.resume();
      return;
    }
    const explanation = await refusalText(
      this.options.shownUrl,
      message.keys.method ?? 'a message',
      response,
    );
    if (CONNECTION_FAILURES.has(status)) {
      // The connection is gone on the server (a restart, another instance) or the credentials no longer pass: the
      // same seam as a refused stream resume, so the client can carry its sessions over to a new connection.
      const auth = status === 401 || status === 403;
      this.resumeFailed(auth ? 'auth' : 'unknown', explanation, CloseCode.PolicyViolation);
      return;
    }
    if (message.keys.kind !== 'request' || message.keys.id === undefined) {
      this.options.log.warn('the server refused a message that needs no answer; it is lost', { status });
      return;
    }
    const error =
      status === 413
        ? wireErrors.messageTooLarge(this.options.maxMessageBytes, message.bytes)
        : wireErrors.internalError({ transport: 'streamable-http', status, body: explanation }, explanation);
    this.deliver(Buffer.from(errorResponseText(message.keys.id, error)));
  }

  /** Which session a message belongs to: its `params.sessionId`, or (an answer) the stream its request came on. */
  private sessionOf(keys: RouteKeys): string | undefined {
    if (keys.kind !== 'response') return keys.sessionId;
    if (keys.id === undefined) return undefined;
    return this.streams.takeAnswerSession(keys.id);
  }

  /** Sends one request; undefined (after ending the connection) when the server cannot be reached. */
  private async request(
    method: 'POST' | 'DELETE',
    body: Buffer | string | undefined,
    headers: Record<string, string>,
  ): Promise<IncomingMessage | undefined> {
    try {
      return await this.options.exchange.send({
        method,
        headers: { ...headers, ...(body !== undefined ? { 'Content-Type': JSON_MEDIA_TYPE } : {}) },
        ...(body !== undefined ? { body } : {}),
      });
    } catch (error) {
      const reason = `the connection to ${this.options.shownUrl} failed: ${(error as Error).message}`;
      // A POST cut off may or may not have reached the agent (v1 has no idempotency to retry it safely): once the
      // connection is open, that is a resume that cannot be made, told through the same seam as a refused one.
      if (this.state === 'open')
        this.resumeFailed('unreachable', `a message could not be sent: ${reason}`, 1006);
      else this.finish({ code: 1006, reason });
      return undefined;
    }
  }

  private async deleteConnection(): Promise<void> {
    const close = this.closeAfterQueue ?? { code: CloseCode.Normal, reason: '' };
    if (this.connectionId !== undefined && this.state !== 'ended') {
      const deleted = this.options.exchange
        .send({ method: 'DELETE', headers: { [CONNECTION_ID_HEADER]: this.connectionId } })
        .then((response) => response.resume())
        .catch(() => {});
      await Promise.race([deleted, delay(DELETE_TIMEOUT_MS, undefined, { ref: false })]);
    }
    this.finish(close);
  }

  // ---- receiving -------------------------------------------------------------------------------------------------

  private deliver(frame: Buffer): void {
    const keys = this.options.routeKeysOf(frame);
    const session = keys.resultSessionId ?? keys.sessionId;
    if (session !== undefined && this.state === 'open') this.streams.open(session);
    this.handler?.(frame);
  }

  // ---- ending ----------------------------------------------------------------------------------------------------

  /** Answers a request the connection cannot send, on the connection's behalf. */
  private answerLocally(keys: RouteKeys, message: string): void {
    if (keys.kind !== 'request' || keys.id === undefined) return;
    this.handler?.(Buffer.from(errorResponseText(keys.id, wireErrors.invalidRequest(undefined, message))));
  }

  /** The transport resume failed: told once (`resume-failed`, with its error), then the connection ends. */
  private resumeFailed(
    reason: ResumeRefusedError['reason'],
    message: string,
    code: number = CloseCode.GoingAway,
  ): void {
    if (this.state === 'ended') return;
    const error = new ResumeRefusedError(reason, message, 'durable-resume');
    this.options.log.logger.warn('resume failed', { reason, error: message });
    this.notify({ type: 'resume-failed', reason, message, error });
    this.finish({ code, reason: `resume failed (${reason}): ${message}` });
  }

  private notify(event: ConnectionEvent): void {
    try {
      this.options.onConnectionEvent?.(event);
    } catch (error) {
      this.options.log.logger.warn('onConnectionEvent threw', { error: String(error) });
    }
  }

  private finish(close: PortClose): void {
    if (this.finished) return;
    this.finished = true;
    this.stallGuard.stop();
    this.state = 'ended';
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.streams.closeAll();
    this.drainWaiters.length = 0;
    this.options.exchange.close();
    this.resolveClosed(close);
  }
}

/** What an `initialize` answer advertises (`transport.resumable`), read once per connection. */
function advertisedIn(body: Buffer): ResumableRetention | undefined {
  try {
    return readAdvertisedRetention((JSON.parse(body.toString('utf8')) as { result?: unknown }).result);
  } catch {
    return undefined;
  }
}
