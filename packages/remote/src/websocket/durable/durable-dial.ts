// DurableDial: the client's side of the durable-resume draft on one RFD WebSocket connection (its port's PortResume):
// the retention `initialize` advertised, the last processed cursor and repeats dropped by it, what waits while no
// socket carries the connection, and the `stream/resume` of a new socket.
import type { WebSocket } from 'ws';
import type { PortClose } from '../../relay/frame-port.js';
import {
  failureReasonOf,
  type ResumableRetention,
  type ResumeFailureReason,
  readAdvertisedRetention,
  STREAM_RESUME_FAILED_METHOD,
  STREAM_RESUME_METHOD,
  TURN_STATE_META_KEY,
  type TurnState,
} from '../../shared/durable-resume.js';
import { CursorDedupe } from '../../wire/cursor-dedupe.js';
import { type CursorNodes, cursorNodesOf, readCursorSlot } from '../../wire/cursor-slot.js';
import { compileWatch, FrameScanner } from '../../wire/frame-scan.js';
import { errorResponseText, wireErrors } from '../../wire/json-rpc.js';
import { type RouteKeys, type RouteNodes, readRouteKeys, routeNodesOf } from '../../wire/route-keys.js';
import { TURN_STATES_META_KEY } from '../stream-resume.js';
import type { PortResume, SocketOwner, WebSocketPort } from '../websocket-port.js';
import { DeliveryConfirmations } from './delivery-confirmations.js';
import { DURABLE_SOCKET_WATCH } from './durable-socket.js';

/** The prefix of the ids of the client's own `stream/resume` requests (strings, never an application's ids). */
const RESUME_ID_PREFIX = 'acpkit-stream-resume-';

/** What a resume brought, told before any message that follows it is handed on. */
export interface DialResumed {
  /** Messages sent again: notifications and answers cut in flight (a repeat of them is harmless in ACP). */
  readonly resent: number;
  /** Requests cut in flight, answered here with an error instead of being sent again. */
  readonly failedRequests: number;
  /** The turn states the server's answer gave, by session (ours: every session; the draft's: the last prompted). */
  readonly turnStates: ReadonlyArray<{ readonly sessionId: string; readonly turnState: TurnState }>;
}

/** How one `stream/resume` attempt ended. */
export type DialAttemptOutcome =
  | { readonly kind: 'resumed' }
  /** The server refused it (`stream/resume_failed`, or an error answer): the connection cannot be resumed. */
  | { readonly kind: 'refused'; readonly reason: ResumeFailureReason; readonly message: string }
  /** The new socket dropped before the answer (try again). */
  | { readonly kind: 'dropped' }
  /** The connection ended meanwhile (closed locally, or with a close frame). */
  | { readonly kind: 'ended'; readonly close: PortClose };

type Phase =
  /** Messages flow (the first socket, or a resumed one). */
  | 'live'
  | 'detached'
  /** A new socket is attached and its `stream/resume` sent: waiting for the answer. */
  | 'resuming'
  /** The server refused the resume: nothing more is handed on from this socket. */
  | 'refused'
  | 'ended';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The turn states an honoured `stream/resume`'s result names: ours by session, else the draft's one advisory. */
function turnStatesOf(result: unknown): DialResumed['turnStates'] {
  const meta = isObject(result) && isObject(result._meta) ? result._meta : undefined;
  if (meta === undefined) return [];
  const isTurn = (value: unknown): value is TurnState => isObject(value) && typeof value.state === 'string';
  const all = meta[TURN_STATES_META_KEY];
  if (isObject(all))
    return Object.entries(all).flatMap(([sessionId, turnState]) =>
      isTurn(turnState) ? [{ sessionId, turnState }] : [],
    );
  const one = meta[TURN_STATE_META_KEY];
  if (!isTurn(one) || typeof (one as { sessionId?: unknown }).sessionId !== 'string') return [];
  const { sessionId, ...turnState } = one as TurnState & { sessionId: string };
  return [{ sessionId, turnState: turnState as TurnState }];
}

/**
 * The durable-resume draft dialled on one RFD WebSocket connection, as its {@link WebSocketPort}'s
 * {@link PortResume}. Each message from the server is scanned once for its id and `_meta["acp/cursor"]`: a cursor
 * already processed is a repeat and dropped (the server replays from after the cursor the client names, identically,
 * and delivery is at least once), so the application gets each message once; a message without a cursor (an error
 * answer) keeps its place, so the first such messages of a replay that this side already processed are skipped
 * too. The answer to the application's `initialize` tells whether the server keeps messages
 * (`transport.resumable`): only then does an unclean drop detach the connection for a resume.
 *
 * While no socket carries the connection, what the application sends waits here. On a new socket the client sends
 * `stream/resume {connectionId, cursor}` first ({@link resumeOn}); an answer resumes (the replay and live messages
 * follow), `stream/resume_failed` or an error answer refuses. Messages the server never confirmed reading
 * ({@link DeliveryConfirmations}) were cut in flight: requests are answered here with an error (`cut_in_flight`; a
 * `session/prompt` must not run twice) and their late answers dropped, notifications and answers are sent again.
 *
 * @example
 * ```ts
 * const dial = new DurableDial(connectionId, 16 << 20, { detached: (close) => reconnect(close), ended: () => {} });
 * const port = new WebSocketPort(socket, { ...options, resume: dial });
 * ```
 */
export class DurableDial implements PortResume {
  readonly peerAcknowledges = false;
  readonly replay: PortResume['replay'];
  port: WebSocketPort | undefined;
  private phase: Phase = 'live';
  private advertised: ResumableRetention | undefined;
  /** The id of the application's `initialize` request (whose answer advertises the retention). */
  private initializeId: string | undefined;
  private lastCursor: string | undefined;
  /** Messages without a cursor processed since the last cursor (a replay sends them again). */
  private cursorlessSinceCursor = 0;
  /** How many leading cursor-less messages of the replay under way were processed already. */
  private skipCursorless = 0;
  private readonly dedupe = new CursorDedupe();
  private readonly waiting: Array<{ readonly payload: Buffer | string; readonly keys: RouteKeys }> = [];
  private waitingBytes = 0;
  private readonly confirmations: DeliveryConfirmations;
  /** Requests answered here as cut in flight: an answer the server sends for one later is dropped. */
  private readonly failedIds = new Set<string>();
  private resumes = 0;
  private resumeId: string | undefined;
  private dropCode = 1006;
  private attempt: ((outcome: DialAttemptOutcome) => void) | undefined;
  private onResumed: ((resumed: DialResumed) => void) | undefined;
  private readonly scanner: FrameScanner;
  private readonly routes: RouteNodes;
  private readonly cursors: CursorNodes;

  constructor(
    /** The `Acp-Connection-Id` the first socket's 101 named (what `stream/resume` names). */
    readonly connectionId: string,
    /** What may wait while no socket carries the connection (`resumeBufferBytes`). */
    private readonly bufferBytes: number,
    private readonly owner: SocketOwner,
  ) {
    const watch = compileWatch(DURABLE_SOCKET_WATCH);
    this.scanner = new FrameScanner(watch);
    this.routes = routeNodesOf(watch);
    this.cursors = cursorNodesOf(watch)!;
    this.confirmations = new DeliveryConfirmations(bufferBytes);
    const dial = this;
    this.replay = {
      get isFull() {
        return dial.waitingBytes >= dial.bufferBytes;
      },
      get bytes() {
        return dial.waitingBytes;
      },
      acknowledged: 0,
    };
  }

  /** What the server's `initialize` answer advertised; undefined before it, or when it keeps nothing. */
  get retention(): ResumableRetention | undefined {
    return this.advertised;
  }

  /** The last cursor processed (what the next `stream/resume` names). */
  get cursor(): string | undefined {
    return this.lastCursor;
  }

  get live(): boolean {
    return this.phase === 'live';
  }

  /** A drop is resumable once the server advertised retention, until the connection ended or was refused. */
  get canDetach(): boolean {
    return this.advertised !== undefined && this.phase !== 'ended' && this.phase !== 'refused';
  }

  start(port: WebSocketPort): void {
    this.port = port;
    this.confirmations.bind(port.socket);
  }

  /** A server's concern. */
  establish(): void {}

  send(payload: Buffer | string, route: RouteKeys | undefined): void {
    const keys = route ?? { kind: 'notification' };
    if (keys.kind === 'request' && keys.method === 'initialize' && this.initializeId === undefined)
      this.initializeId = keys.id;
    if (this.phase === 'live') {
      this.port!.writeData(payload);
      this.confirmations.sent(payload, keys);
      return;
    }
    this.waiting.push({ payload, keys });
    this.waitingBytes += typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  }

  dataReceived(frame: Buffer): boolean {
    if (this.phase === 'refused') return false;
    if (this.phase === 'resuming' && this.resumeAnswer(frame)) return false;
    if (!this.scanner.scan(frame)) return true;
    const keys = readRouteKeys(this.scanner, this.routes);
    const slot = readCursorSlot(this.scanner, this.cursors);
    // An existing `acp/cursor` value is a slot of shape 0 (the token itself): an opaque string, compared as written.
    const cursor =
      slot !== undefined && slot.shape === 0 ? frame.toString('utf8', slot.start, slot.end) : undefined;
    if (cursor !== undefined) {
      this.skipCursorless = 0;
      if (!this.dedupe.firstTime(cursor)) return false;
      this.lastCursor = cursor;
      this.cursorlessSinceCursor = 0;
    } else if (this.skipCursorless > 0) {
      this.skipCursorless -= 1;
      return false;
    } else this.cursorlessSinceCursor += 1;
    if (keys.kind !== 'response' || keys.id === undefined) return true;
    this.confirmations.answered(keys.id);
    if (this.failedIds.delete(keys.id)) return false;
    if (keys.id === this.initializeId && this.advertised === undefined) {
      try {
        this.advertised = readAdvertisedRetention(
          (JSON.parse(frame.toString('utf8')) as { result?: unknown }).result,
        );
      } catch {
        // not an answer to read: no retention
      }
      // A server that keeps nothing (an SDK's RFD WebSocket): the port goes on as the plain wire, nothing scanned,
      // pinged or held for it from now on.
      if (this.advertised === undefined) this.leave();
    }
    return true;
  }

  /** Takes this layer off the port: the connection is the plain wire (its drop ends it). */
  private leave(): void {
    this.confirmations.unbind();
    this.confirmations.takeCut();
    this.port!.resume = undefined;
  }

  detached(close: PortClose): void {
    this.phase = 'detached';
    this.dropCode = close.code;
    this.confirmations.unbind();
    const attempt = this.attempt;
    this.attempt = undefined;
    this.onResumed = undefined;
    // A resume attempt whose socket dropped before its answer simply failed: the owner's loop goes on.
    if (attempt !== undefined) attempt({ kind: 'dropped' });
    else this.owner.detached(close);
  }

  ended(close: PortClose): void {
    this.phase = 'ended';
    this.confirmations.unbind();
    this.waiting.length = 0;
    this.waitingBytes = 0;
    this.attempt?.({ kind: 'ended', close });
    this.attempt = undefined;
    this.owner.ended(close);
  }

  /**
   * Puts `socket` (just opened on the same URL) under the port and sends `stream/resume` as its first message;
   * resolves when the server answered (`resumed` is called then, before any message that follows is handed on),
   * refused, or the socket dropped first.
   */
  resumeOn(socket: WebSocket, resumed: (resumed: DialResumed) => void): Promise<DialAttemptOutcome> {
    const port = this.port!;
    this.phase = 'resuming';
    this.resumes += 1;
    this.resumeId = `${RESUME_ID_PREFIX}${this.resumes}`;
    this.skipCursorless = this.cursorlessSinceCursor;
    const outcome = new Promise<DialAttemptOutcome>((resolve) => {
      this.attempt = resolve;
      this.onResumed = resumed;
    });
    if (!port.attach(socket)) return Promise.resolve({ kind: 'ended', close: { code: 1000, reason: '' } });
    this.confirmations.bind(socket);
    port.writeData(
      JSON.stringify({
        jsonrpc: '2.0',
        id: this.resumeId,
        method: STREAM_RESUME_METHOD,
        params: {
          connectionId: this.connectionId,
          ...(this.lastCursor !== undefined ? { cursor: JSON.parse(this.lastCursor) as unknown } : {}),
        },
      }),
    );
    return outcome;
  }

  /** Whether `frame` is the answer to the `stream/resume` under way (then handled here). */
  private resumeAnswer(frame: Buffer): boolean {
    let message: Record<string, unknown> | undefined;
    if (frame.includes(RESUME_ID_PREFIX) || frame.includes(STREAM_RESUME_FAILED_METHOD)) {
      try {
        const parsed: unknown = JSON.parse(frame.toString('utf8'));
        message = isObject(parsed) ? parsed : undefined;
      } catch {
        message = undefined;
      }
    }
    if (message?.method === STREAM_RESUME_FAILED_METHOD) {
      const params = isObject(message.params) ? message.params : {};
      this.refused(params.reason, params.message);
      return true;
    }
    if (message !== undefined && message.id === this.resumeId) {
      if ('result' in message) this.accepted(message.result);
      else {
        const error = isObject(message.error) ? message.error : {};
        const data = isObject(error.data) ? error.data : {};
        this.refused(data.reason, data.message ?? error.message);
      }
      return true;
    }
    // A server that replays without answering (the draft defines no answer): taken as accepted.
    this.accepted(undefined);
    return false;
  }

  private refused(reason: unknown, message: unknown): void {
    this.phase = 'refused';
    const attempt = this.attempt;
    this.attempt = undefined;
    this.onResumed = undefined;
    attempt?.({
      kind: 'refused',
      reason: failureReasonOf(typeof reason === 'string' ? reason : undefined),
      message: `the server refused stream/resume: ${typeof message === 'string' ? message : String(reason)}`,
    });
  }

  /**
   * Resumed: told first, then requests cut in flight answered with an error, notifications and answers cut in
   * flight sent again, then what waited, in the order it was sent.
   */
  private accepted(result: unknown): void {
    const port = this.port!;
    this.phase = 'live';
    const cut = this.confirmations.takeCut();
    const failed = cut.filter((message) => message.keys.kind === 'request' && message.keys.id !== undefined);
    const attempt = this.attempt;
    this.attempt = undefined;
    this.onResumed?.({
      resent: cut.length - failed.length,
      failedRequests: failed.length,
      turnStates: turnStatesOf(result),
    });
    this.onResumed = undefined;
    for (const message of failed) {
      this.failedIds.add(message.keys.id!);
      port.handOn(Buffer.from(errorResponseText(message.keys.id!, wireErrors.cutInFlight(this.dropCode))));
    }
    const waiting = this.waiting.splice(0);
    this.waitingBytes = 0;
    for (const message of cut) if (message.keys.kind !== 'request') this.send(message.payload, message.keys);
    for (const message of waiting) this.send(message.payload, message.keys);
    port.replayWritten();
    attempt?.({ kind: 'resumed' });
  }
}
