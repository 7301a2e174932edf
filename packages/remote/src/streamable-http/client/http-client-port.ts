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
import {
  failureReasonOf,
  RESUME_REFUSED_HTTP_HEADER,
  type ResumableRetention,
  readAdvertisedRetention,
  TURN_STATE_EVENT,
  TURN_STATE_META_KEY,
  type TurnState,
} from '../../shared/durable-resume.js';
import { ResumeRefusedError } from '../../shared/errors.js';
import { reconnectBackoffMs } from '../../shared/reconnect-backoff.js';
import { checkInitialize } from '../../wire/initialize.js';
import { errorResponseText, wireErrors } from '../../wire/json-rpc.js';
import { ROUTE_WATCH, type RouteKeys } from '../../wire/route-keys.js';
import {
  CONNECTION_ID_HEADER,
  EVENT_STREAM_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
  LAST_EVENT_ID_HEADER,
  RESUME_WINDOW_HEADER,
  SESSION_ID_HEADER,
} from '../protocol.js';
import { CursorDedupe } from './cursor-dedupe.js';
import { type HttpExchange, readResponseBody } from './http-exchange.js';
import { type SseEvent, SseReader } from './sse-reader.js';

/** Error bodies are explanations, not messages: at most this much of one is read (as the TS SDK client). */
const MAX_ERROR_BODY_BYTES = 8 * 1024;
/** Statuses of a POST that mean the connection itself is gone or refused (the TS SDK client's list). */
const CONNECTION_FAILURES = new Set([401, 403, 404, 410]);
/** A stream that brings neither data nor a keepalive for this many keepalive intervals is dead (the draft's rule). */
const SILENT_INTERVALS = 5;
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

/** One SSE stream the client reads: the connection stream (`session` undefined) or a session's. */
interface StreamReader {
  readonly session: string | undefined;
  response: IncomingMessage | undefined;
  reader: SseReader;
  /** The server's closing comment, when it sent one: the connection ended, nothing to reopen. */
  closing: PortClose | undefined;
  readonly abort: AbortController;
  /** The cursors processed (a message sent again is handed on once). */
  readonly dedupe: CursorDedupe;
}

/** How one GET of a stream ended. */
type ReadOutcome =
  | { readonly kind: 'dropped'; readonly reason: string }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly explanation: string;
      /** The `Acpkit-Resume-Refused` header of a refused resume. */
      readonly resumeRefusal: string | undefined;
    };

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
  private readonly streams = new Map<string, StreamReader>();
  /** Server requests that came on a session stream: the client's answer carries that session's header. */
  private readonly answerSessions = new Map<string, string>();
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
      () => {
        for (const stream of this.streams.values()) stream.response?.pause();
      },
      () => {
        for (const stream of this.streams.values()) stream.response?.resume();
      },
    );
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
          : await this.refusalText('initialize', response);
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
    this.openStream(undefined);
    this.deliver(body);
  }

  private async post(message: QueuedMessage): Promise<void> {
    const session = this.sessionOf(message.keys);
    if (session !== undefined) this.openStream(session);
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
    const explanation = await this.refusalText(message.keys.method ?? 'a message', response);
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
    const session = this.answerSessions.get(keys.id);
    this.answerSessions.delete(keys.id);
    return session;
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
    if (session !== undefined && this.state === 'open') this.openStream(session);
    this.handler?.(frame);
  }

  /** Opens the connection stream (`session` undefined) or a session's stream, unless it is open already. */
  private openStream(session: string | undefined): void {
    const key = session ?? '';
    if (this.streams.has(key) || this.connectionId === undefined || !this.isOpen) return;
    const stream: StreamReader = {
      session,
      response: undefined,
      reader: undefined as never,
      closing: undefined,
      abort: new AbortController(),
      dedupe: new CursorDedupe(),
    };
    stream.reader = this.readerFor(stream, undefined);
    this.streams.set(key, stream);
    void this.readStream(stream);
  }

  /**
   * A reader for one GET of `stream`: each response gets its own (a cut leaves a partial line or event behind, which
   * must not run into the next response), starting from the last event id the previous one ended with.
   */
  private readerFor(stream: StreamReader, lastEventId: string | undefined): SseReader {
    return new SseReader(
      this.options.maxMessageBytes,
      {
        event: (event) => this.onEvent(stream, event),
        comment: (text) => {
          const closed = /^closed (\d+)(?: (.*))?$/.exec(text);
          if (closed) stream.closing = { code: Number(closed[1]), reason: closed[2] ?? '' };
        },
        oversize: (limit) =>
          this.options.log.warn('the server sent an event over maxMessageBytes; skipped', { limit }),
      },
      lastEventId,
    );
  }

  private onEvent(stream: StreamReader, event: SseEvent): void {
    if (event.type === TURN_STATE_EVENT) {
      this.onTurnState(stream, event.data);
      return;
    }
    if (event.type !== undefined && event.type !== 'message') return;
    // At-least-once: a message whose cursor this stream already processed was handed on then.
    if (event.cursor !== undefined && !stream.dedupe.firstTime(event.cursor)) return;
    const data = event.data;
    const keys = this.options.routeKeysOf(data);
    if (keys.kind === 'request' && keys.id !== undefined && stream.session !== undefined)
      this.answerSessions.set(keys.id, stream.session);
    this.deliver(data);
  }

  /** The turn-state advisory a resumed session stream starts with: told to `onConnectionEvent`. */
  private onTurnState(stream: StreamReader, data: Buffer): void {
    let turnState: TurnState | undefined;
    try {
      const advisory = JSON.parse(data.toString('utf8')) as { _meta?: Record<string, unknown> };
      const value = advisory._meta?.[TURN_STATE_META_KEY] as { state?: unknown } | undefined;
      if (typeof value?.state === 'string') turnState = value as TurnState;
    } catch {
      // not JSON: ignored, as an unknown event would be
    }
    if (turnState === undefined || stream.session === undefined) return;
    this.options.log.logger.info('session turn state after resume', {
      session: stream.session,
      state: turnState.state,
    });
    this.notify({ type: 'turn-state', sessionId: stream.session, turnState });
  }

  /**
   * Reads one stream until the connection ends. A stream that drops while the connection is open is reopened with
   * `Last-Event-ID` (its last processed cursor; at once, then with the shared jittered backoff) until the server's
   * retention window and 1.5 ping intervals have passed. A server that advertises no retention, refuses the resume
   * (409: the durable-resume draft's refusal; 404: no such connection) or stays unreachable ends the connection with
   * a `resume-failed` event carrying a {@link ResumeRefusedError}, never a silent fresh stream.
   */
  private async readStream(stream: StreamReader): Promise<void> {
    let interruption: { since: number; attempts: number; reason: string } | undefined;
    for (;;) {
      const resuming = interruption;
      const outcome = await this.readOnce(stream, resuming !== undefined, () => {
        if (resuming === undefined) return;
        interruption = undefined;
        this.notify({
          type: 'resumed',
          attempts: resuming.attempts,
          downtimeMs: Math.round(performance.now() - resuming.since),
          replayedFrames: 0,
        });
      });
      if (this.state === 'ended') return;
      if (stream.closing !== undefined) {
        // The server ended the connection (unless this side is closing it: then its own close is the outcome).
        if (this.state !== 'closing') this.finish(stream.closing);
        return;
      }
      if (outcome.kind === 'refused') {
        if (interruption !== undefined && (outcome.status === 409 || outcome.status === 404)) {
          const reason = outcome.status === 404 ? 'unknown' : failureReasonOf(outcome.resumeRefusal);
          this.resumeFailed(reason, outcome.explanation);
          return;
        }
        if (stream.session !== undefined && outcome.status !== 401 && outcome.status !== 403) {
          // A session stream the server does not have (yet: Python's server knows a session only once it answered
          // session/new or load; 409: TypeScript's has another reader) ends alone: the connection goes on, and the
          // next message naming the session opens it again.
          this.options.log.warn('the server refused a session stream', {
            session: stream.session,
            status: outcome.status,
          });
          this.streams.delete(stream.session);
          return;
        }
        if (interruption !== undefined) {
          const auth = outcome.status === 401 || outcome.status === 403;
          this.resumeFailed(auth ? 'auth' : 'ended', outcome.explanation, CloseCode.PolicyViolation);
        } else this.finish({ code: CloseCode.PolicyViolation, reason: outcome.explanation });
        return;
      }
      if (this.state === 'closing') return;
      if (!this.resumable) {
        // The draft: without `transport.resumable`, go straight to session/resume (a new connection).
        const message = `the server's event stream dropped (${outcome.reason}) and the server keeps nothing to resume it from`;
        this.resumeFailed('unsupported', message);
        return;
      }
      if (interruption === undefined) {
        interruption = { since: performance.now(), attempts: 0, reason: outcome.reason };
        this.notify({
          type: 'interrupted',
          code: 1006,
          reason: outcome.reason,
          windowMs: this.resumeWindowMs,
        });
      }
      interruption.attempts += 1;
      const deadline =
        interruption.since + this.resumeWindowMs + Math.round(1.5 * this.options.pingIntervalMs);
      if (performance.now() >= deadline) {
        const message = `the server's event stream dropped (${interruption.reason}) and could not be reopened`;
        this.resumeFailed('unreachable', message);
        return;
      }
      if (interruption.attempts > 1)
        await delay(reconnectBackoffMs(interruption.attempts), undefined, { ref: false });
    }
  }

  /** One GET of a stream, read until it ends (`onOpen` when the server accepted it). */
  private async readOnce(stream: StreamReader, resuming: boolean, onOpen: () => void): Promise<ReadOutcome> {
    let response: IncomingMessage;
    const lastEventId = resuming ? stream.reader.lastEventId : undefined;
    try {
      response = await this.options.exchange.send({
        method: 'GET',
        headers: {
          Accept: EVENT_STREAM_MEDIA_TYPE,
          [CONNECTION_ID_HEADER]: this.connectionId!,
          ...(stream.session !== undefined ? { [SESSION_ID_HEADER]: stream.session } : {}),
          ...(lastEventId !== undefined ? { [LAST_EVENT_ID_HEADER]: lastEventId } : {}),
        },
        signal: stream.abort.signal,
      });
    } catch (error) {
      return { kind: 'dropped', reason: (error as Error).message };
    }
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      const explanation =
        status === 404
          ? `the server at ${this.options.shownUrl} no longer knows connection ${this.connectionId} (HTTP 404${await this.bodyText(response)}): it ended, or the server restarted`
          : await this.refusalText('an event stream', response);
      const refusal = response.headers[RESUME_REFUSED_HTTP_HEADER];
      return {
        kind: 'refused',
        status,
        explanation,
        resumeRefusal: typeof refusal === 'string' ? refusal : undefined,
      };
    }
    onOpen();
    stream.reader = this.readerFor(stream, stream.reader.lastEventId);
    stream.response = response;
    if (this.reading.isPaused) response.pause();
    return new Promise((resolve) => {
      // Five keepalive intervals without a byte (while this side reads): a dead stream, reopened like a dropped one.
      const intervalMs = this.advertised?.keepaliveIntervalMs ?? this.options.pingIntervalMs;
      let heardAt = performance.now();
      const silence = setInterval(() => {
        if (this.reading.isPaused) heardAt = performance.now();
        else if (performance.now() - heardAt > SILENT_INTERVALS * intervalMs)
          response.destroy(
            new Error(`nothing arrived for ${SILENT_INTERVALS} keepalive intervals (${intervalMs} ms)`),
          );
      }, intervalMs);
      silence.unref();
      const dropped = (reason: string) => {
        clearInterval(silence);
        stream.response = undefined;
        resolve({ kind: 'dropped', reason });
      };
      response.on('data', (chunk: Buffer) => {
        heardAt = performance.now();
        stream.reader.push(chunk);
      });
      response.once('end', () => {
        stream.reader.end();
        dropped('the stream ended');
      });
      response.once('error', (error) => dropped(error.message));
      response.once('aborted', () => dropped('the stream was cut off'));
    });
  }

  // ---- ending ----------------------------------------------------------------------------------------------------

  /** A refused request, in words: the status and the server's explanation. */
  private async refusalText(what: string, response: IncomingMessage): Promise<string> {
    const body = await this.bodyText(response);
    return `the server at ${this.options.shownUrl} refused ${what} with HTTP ${response.statusCode ?? 0}${body}`;
  }

  /** `: <the start of the body>` in printable ASCII, or '' (the explanation is optional). */
  private async bodyText(response: IncomingMessage): Promise<string> {
    try {
      const text = (await readResponseBody(response, MAX_ERROR_BODY_BYTES)).body
        .toString('utf8')
        .replace(/[^\x20-\x7e]+/g, ' ')
        .trim()
        .slice(0, 200);
      return text === '' ? '' : `: ${text}`;
    } catch {
      return '';
    }
  }

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
    for (const stream of this.streams.values()) {
      stream.abort.abort();
      stream.response?.destroy();
    }
    this.streams.clear();
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
