// The SSE streams of one Streamable HTTP client connection: opened per connection and session, read, deduplicated by
// cursor, and reopened with Last-Event-ID when they drop (the durable-resume draft, dialled).
import type { IncomingMessage } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConnectionEvent } from '../../options/connection-events.js';
import type { ReadGate } from '../../relay/flow-control.js';
import type { FrameLog } from '../../relay/frame-log.js';
import type { PortClose } from '../../relay/frame-port.js';
import { CloseCode } from '../../shared/constants.js';
import {
  failureReasonOf,
  RESUME_REFUSED_HTTP_HEADER,
  type ResumableRetention,
  TURN_STATE_EVENT,
  TURN_STATE_META_KEY,
  type TurnState,
} from '../../shared/durable-resume.js';
import type { ResumeRefusedError } from '../../shared/errors.js';
import { reconnectBackoffMs } from '../../shared/reconnect-backoff.js';
import { CursorDedupe } from '../../wire/cursor-dedupe.js';
import type { RouteKeys } from '../../wire/route-keys.js';
import {
  CONNECTION_ID_HEADER,
  EVENT_STREAM_MEDIA_TYPE,
  LAST_EVENT_ID_HEADER,
  SESSION_ID_HEADER,
} from '../protocol.js';
import { type HttpExchange, refusalText, responseText } from './http-exchange.js';
import { type SseEvent, SseReader } from './sse-reader.js';

/** A stream silent (no byte, not even a keepalive) for this many keepalive intervals is dead, and reopened. */
const SILENT_INTERVALS = 5;

/** What the streams need of their connection (the {@link HttpClientPort} that owns them). */
export interface EventStreamsHost {
  readonly options: {
    readonly exchange: HttpExchange;
    readonly shownUrl: string;
    readonly log: FrameLog;
    readonly maxMessageBytes: number;
    readonly pingIntervalMs: number;
    readonly routeKeysOf: (payload: Buffer | string) => RouteKeys;
  };
  readonly state: 'idle' | 'initializing' | 'open' | 'closing' | 'ended';
  readonly connectionId: string | undefined;
  readonly isOpen: boolean;
  readonly resumable: boolean;
  readonly resumeWindowMs: number;
  readonly advertised: ResumableRetention | undefined;
  readonly reading: ReadGate;
  deliver(frame: Buffer): void;
  notify(event: ConnectionEvent): void;
  resumeFailed(reason: ResumeRefusedError['reason'], message: string, code?: number): void;
  finish(close: PortClose): void;
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
 * The event streams of one client connection: the connection stream and one per session, each read until the
 * connection ends and reopened with `Last-Event-ID` when it drops. A class of its own so the port keeps the sending
 * side and the connection's lifecycle.
 */
export class EventStreams {
  private readonly streams = new Map<string, StreamReader>();
  /** Server requests that came on a session stream: the client's answer carries that session's header. */
  private readonly answerSessions = new Map<string, string>();

  constructor(private readonly host: EventStreamsHost) {}

  /** Pauses (flow control) every stream's response. */
  pause(): void {
    for (const stream of this.streams.values()) stream.response?.pause();
  }

  resume(): void {
    for (const stream of this.streams.values()) stream.response?.resume();
  }

  /** The session whose stream carried the request answered by `id` (its answer goes with that session's header). */
  takeAnswerSession(id: string): string | undefined {
    const session = this.answerSessions.get(id);
    this.answerSessions.delete(id);
    return session;
  }

  /** Stops reading every stream (the connection ended). */
  closeAll(): void {
    for (const stream of this.streams.values()) {
      stream.abort.abort();
      stream.response?.destroy();
    }
    this.streams.clear();
  }

  /** Opens the connection stream (`session` undefined) or a session's stream, unless it is open already. */
  open(session: string | undefined): void {
    const key = session ?? '';
    if (this.streams.has(key) || this.host.connectionId === undefined || !this.host.isOpen) return;
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
      this.host.options.maxMessageBytes,
      {
        event: (event) => this.onEvent(stream, event),
        comment: (text) => {
          const closed = /^closed (\d+)(?: (.*))?$/.exec(text);
          if (closed) stream.closing = { code: Number(closed[1]), reason: closed[2] ?? '' };
        },
        oversize: (limit) =>
          this.host.options.log.warn('the server sent an event over maxMessageBytes; skipped', { limit }),
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
    const keys = this.host.options.routeKeysOf(data);
    if (keys.kind === 'request' && keys.id !== undefined && stream.session !== undefined)
      this.answerSessions.set(keys.id, stream.session);
    this.host.deliver(data);
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
    this.host.options.log.logger.info('session turn state after resume', {
      session: stream.session,
      state: turnState.state,
    });
    this.host.notify({ type: 'turn-state', sessionId: stream.session, turnState });
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
        this.host.notify({
          type: 'resumed',
          attempts: resuming.attempts,
          downtimeMs: Math.round(performance.now() - resuming.since),
          replayedFrames: 0,
        });
      });
      if (this.host.state === 'ended') return;
      if (stream.closing !== undefined) {
        // The server ended the connection (unless this side is closing it: then its own close is the outcome).
        if (this.host.state !== 'closing') this.host.finish(stream.closing);
        return;
      }
      if (outcome.kind === 'refused') {
        if (interruption !== undefined && (outcome.status === 409 || outcome.status === 404)) {
          const reason = outcome.status === 404 ? 'unknown' : failureReasonOf(outcome.resumeRefusal);
          this.host.resumeFailed(reason, outcome.explanation);
          return;
        }
        if (stream.session !== undefined && outcome.status !== 401 && outcome.status !== 403) {
          // A session stream the server does not have (yet: Python's server knows a session only once it answered
          // session/new or load; 409: TypeScript's has another reader) ends alone: the connection goes on, and the
          // next message naming the session opens it again.
          this.host.options.log.warn('the server refused a session stream', {
            session: stream.session,
            status: outcome.status,
          });
          this.streams.delete(stream.session);
          return;
        }
        if (interruption !== undefined) {
          const auth = outcome.status === 401 || outcome.status === 403;
          this.host.resumeFailed(auth ? 'auth' : 'ended', outcome.explanation, CloseCode.PolicyViolation);
        } else this.host.finish({ code: CloseCode.PolicyViolation, reason: outcome.explanation });
        return;
      }
      if (this.host.state === 'closing') return;
      if (!this.host.resumable) {
        // The draft: without `transport.resumable`, go straight to session/resume (a new connection).
        const message = `the server's event stream dropped (${outcome.reason}) and the server keeps nothing to resume it from`;
        this.host.resumeFailed('unsupported', message);
        return;
      }
      if (interruption === undefined) {
        interruption = { since: performance.now(), attempts: 0, reason: outcome.reason };
        this.host.notify({
          type: 'interrupted',
          code: 1006,
          reason: outcome.reason,
          windowMs: this.host.resumeWindowMs,
        });
      }
      interruption.attempts += 1;
      const deadline =
        interruption.since + this.host.resumeWindowMs + Math.round(1.5 * this.host.options.pingIntervalMs);
      if (performance.now() >= deadline) {
        const message = `the server's event stream dropped (${interruption.reason}) and could not be reopened`;
        this.host.resumeFailed('unreachable', message);
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
      response = await this.host.options.exchange.send({
        method: 'GET',
        headers: {
          Accept: EVENT_STREAM_MEDIA_TYPE,
          [CONNECTION_ID_HEADER]: this.host.connectionId!,
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
          ? `the server at ${this.host.options.shownUrl} no longer knows connection ${this.host.connectionId} (HTTP 404${await responseText(response)}): it ended, or the server restarted`
          : await refusalText(this.host.options.shownUrl, 'an event stream', response);
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
    if (this.host.reading.isPaused) response.pause();
    return new Promise((resolve) => {
      // Five keepalive intervals without a byte (while this side reads): a dead stream, reopened like a dropped one.
      const intervalMs = this.host.advertised?.keepaliveIntervalMs ?? this.host.options.pingIntervalMs;
      let heardAt = performance.now();
      const silence = setInterval(() => {
        if (this.host.reading.isPaused) heardAt = performance.now();
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
}
