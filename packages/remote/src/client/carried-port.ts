// A client's port that outlives its server: over the connection of the moment, and when that connection is lost for
// good (a refused resume, a server gone), a new one to which the editor's sessions are carried.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConnectionEvent } from '../options/connection-events.js';
import type { ResolvedConnectOptions } from '../options/validation.js';
import { HIGH_WATER_BYTES, PauseReason, ReadGate } from '../relay/flow-control.js';
import type { FramePort, InboundRoutes, PortClose } from '../relay/frame-port.js';
import type { RelayMetrics } from '../relay/relay-metrics.js';
import type { ClientConnection } from '../seams/client-connection-shape.js';
import { CloseCode } from '../shared/constants.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { reconnectBackoffMs } from '../shared/reconnect-backoff.js';
import type { Transport } from '../shared/transport.js';
import { errorResponseText, wireErrors } from '../wire/json-rpc.js';
import { RouteKeyReader } from '../wire/route-key-reader.js';
import { ROUTE_WATCH, type RouteKeys } from '../wire/route-keys.js';
import { EditorSessions } from './editor-sessions.js';
import { type CarriedSession, SessionCarry } from './session-carry.js';

/** Opens a new connection to the same server (the carry's reconnect). */
export type ConnectionOpener = () => Promise<ClientConnection>;

/** Close codes after which nothing is carried: this side's doing, the agent's own end, or a message at fault. */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CloseCode.Normal,
  CloseCode.ProtocolError,
  CloseCode.UnsupportedData,
  CloseCode.InvalidPayload,
  CloseCode.MessageTooBig,
  CloseCode.AgentExited,
  CloseCode.AgentSpawnFailed,
]);

// The start every `session/update` an SDK writes has (JSON.stringify keeps insertion order): such a frame is told
// from its first bytes, without scanning a streamed reply that may be megabytes long.
const UPDATE_HEAD = Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"');

/** The route keys of a frame from the server: `session/update`s by their head, anything else by one scan. */
export function inboundKeys(frame: Buffer, reader: RouteKeyReader): RouteKeys {
  if (
    frame.length > UPDATE_HEAD.length &&
    frame.compare(UPDATE_HEAD, 0, UPDATE_HEAD.length, 0, UPDATE_HEAD.length) === 0
  ) {
    const end = frame.indexOf(0x22, UPDATE_HEAD.length);
    const sessionId = end > 0 ? frame.toString('utf8', UPDATE_HEAD.length, end) : '';
    // A session id with an escape in it is read by the scan, which decodes it.
    if (end > 0 && !sessionId.includes('\\'))
      return { kind: 'notification', method: 'session/update', sessionId };
  }
  return reader.read(frame);
}

interface QueuedFrame {
  readonly payload: Buffer | string;
  readonly route: RouteKeys;
}

/**
 * The port `runMirror` and `connectAcp` run on. It forwards to the connection of the moment and keeps
 * {@link EditorSessions} from the frames passing through. When that connection ends in a way a new one can mend (its
 * resume refused, its server unreachable or gone away; not a close of this side's, the agent's exit, or a message
 * at fault) while the editor has sessions open, it reconnects with the shared backoff until `reconnectTimeoutMs`,
 * initializes again and resumes (or loads) every session ({@link SessionCarry}); what the editor sends meanwhile waits
 * (within the high-water mark), requests in flight at the cut are answered `sessionCarried`, and the server's
 * requests the editor still had open are cancelled toward it (`$/cancel_request`). When no session can be carried
 * the port ends as the lost connection did, and its user answers what is in flight as before.
 */
export class CarriedPort implements FramePort {
  readonly peer: string;
  readonly transport: Transport;
  readonly metrics: RelayMetrics;
  readonly routeWatch = ROUTE_WATCH;
  readonly outboundRules: FramePort['outboundRules'];
  readonly reading: ReadGate;
  readonly closed: Promise<PortClose>;
  readonly sessions = new EditorSessions();
  #connection: ClientConnection;
  #state: 'connected' | 'carrying' | 'ended' = 'connected';
  #localClose: PortClose | undefined;
  #handler: ((frame: Buffer) => void) | undefined;
  #carry: SessionCarry | undefined;
  #resolveClosed!: (close: PortClose) => void;
  readonly #queue: QueuedFrame[] = [];
  #queuedBytes = 0;
  readonly #fullListeners: Array<() => void> = [];
  #drainWaiters: Array<() => void> = [];
  readonly #reader = new RouteKeyReader();
  /** The consumer hands over the route keys of what it receives (a relay's scan): no scan of our own then. */
  #keysFromConsumer = false;
  /** A frame this port writes itself is being handed on (no bookkeeping for it). */
  #delivering = false;
  readonly #stopCarrying = new AbortController();

  constructor(
    connection: ClientConnection,
    private readonly resolved: ResolvedConnectOptions,
    private readonly reconnect: ConnectionOpener,
  ) {
    this.#connection = connection;
    const { port } = connection;
    this.peer = port.peer;
    this.transport = port.transport;
    this.metrics = port.metrics;
    this.outboundRules = port.outboundRules;
    this.reading = new ReadGate(
      () => this.#connection.port.reading.pause(PauseReason.TargetFull),
      () => this.#connection.port.reading.resume(PauseReason.TargetFull),
    );
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#attach(connection);
  }

  /** The connection of the moment (a new one after a carry). */
  get connection(): ClientConnection {
    return this.#connection;
  }

  get isOpen(): boolean {
    return this.#state !== 'ended';
  }

  get bufferedAmount(): number {
    return this.#state === 'connected' ? this.#connection.port.bufferedAmount : this.#queuedBytes;
  }

  get replayBytes(): number {
    return this.#connection.port.replayBytes;
  }

  get isFull(): boolean {
    if (this.#state === 'carrying') return this.#queuedBytes > HIGH_WATER_BYTES;
    return this.#state === 'connected' && this.#connection.port.isFull;
  }

  onFull(listener: () => void): void {
    this.#fullListeners.push(listener);
  }

  whenDrained(callback: () => void): void {
    let called = false;
    const once = () => {
      if (called) return;
      called = true;
      this.#drainWaiters = this.#drainWaiters.filter((waiter) => waiter !== once);
      callback();
    };
    this.#drainWaiters.push(once);
    if (this.#state === 'connected') this.#connection.port.whenDrained(once);
  }

  receive(handle: (frame: Buffer) => void): () => void {
    this.#handler = handle;
    return () => {
      this.#handler = undefined;
    };
  }

  /** The relay's way in: its check of each frame reads the keys this port keeps its state from (one scan, not two). */
  readonly inboundRoutes: InboundRoutes = {
    watch: ROUTE_WATCH,
    receive: (handle) => {
      this.#keysFromConsumer = true;
      const stop = this.receive(handle);
      return () => {
        stop();
        this.#keysFromConsumer = false;
      };
    },
    received: (keys, frame) => this.#received(keys, frame),
  };

  send(payload: Buffer | string, route?: RouteKeys): void {
    if (this.#state === 'ended') return;
    const keys = route ?? this.#reader.read(payload);
    this.sessions.sent(keys, payload);
    if (this.#state === 'connected') {
      this.#connection.port.send(payload, keys);
      return;
    }
    if (this.#carry !== undefined && keys.kind === 'response') {
      // An answer to a request the new server made while the carry runs: it may be what the carry waits for.
      this.#connection.port.send(payload, keys);
      return;
    }
    this.#queue.push({ payload, route: keys });
    this.#queuedBytes += typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (this.#queuedBytes > HIGH_WATER_BYTES) for (const listener of this.#fullListeners) listener();
  }

  reply(text: string): void {
    if (this.#state === 'connected') this.#connection.port.reply(text);
  }

  markEstablished(): void {
    this.#connection.port.markEstablished();
  }

  close(code: number, reason?: string): void {
    this.#endLocally({ code, reason: reason ?? '' }, () => this.#connection.port.close(code, reason));
  }

  goAway(reason: string, hardStop: Promise<unknown>): void {
    this.#endLocally({ code: CloseCode.GoingAway, reason }, () =>
      this.#connection.port.goAway(reason, hardStop),
    );
  }

  terminate(close?: PortClose): void {
    this.#endLocally(close ?? { code: CloseCode.GoingAway, reason: '' }, () =>
      this.#connection.port.terminate(close),
    );
  }

  /** Ends the connection from this side, whatever it is doing (the user's close: nothing is carried after it). */
  closeConnection(reason: string | undefined, duringReconnect: 'wait' | 'abandon'): void {
    this.#endLocally({ code: CloseCode.Normal, reason: reason ?? '' }, () =>
      this.#connection.close(reason, duringReconnect),
    );
  }

  #endLocally(close: PortClose, closeConnection: () => void): void {
    if (this.#state === 'ended' || this.#localClose !== undefined) return;
    this.#localClose = close;
    if (this.#state === 'carrying') {
      this.#stopCarrying.abort();
      this.#connection.port.terminate(close);
      this.#finish(close);
      return;
    }
    closeConnection();
  }

  #attach(connection: ClientConnection): void {
    const { port } = connection;
    port.onFull(() => {
      if (this.#connection !== connection) return;
      for (const listener of this.#fullListeners) listener();
    });
    if (this.reading.isPaused) port.reading.pause(PauseReason.TargetFull);
    port.receive((frame) => this.#fromServer(connection, frame));
    void port.closed.then((close) => this.#connectionEnded(connection, close));
  }

  #fromServer(connection: ClientConnection, frame: Buffer): void {
    if (this.#connection !== connection || this.#state === 'ended') return;
    if (this.#keysFromConsumer || this.#received(inboundKeys(frame, this.#reader), frame))
      this.#handler?.(frame);
  }

  /** Keeps the carry's own answers, and the editor's sessions, from a frame received; false when it was kept. */
  #received(keys: RouteKeys, frame: Buffer): boolean {
    if (this.#delivering) return true;
    if (this.#carry?.take(keys, frame)) return false;
    this.sessions.received(keys, frame);
    return true;
  }

  #connectionEnded(connection: ClientConnection, close: PortClose): void {
    if (this.#connection !== connection || this.#state !== 'connected') return;
    if (
      this.#localClose !== undefined ||
      !this.resolved.carrySessions ||
      FINAL_CLOSE_CODES.has(close.code) ||
      this.sessions.initializeParams === undefined ||
      this.sessions.open.size === 0
    ) {
      this.#finish(close);
      return;
    }
    void this.#carrySessions(close);
  }

  async #carrySessions(lost: PortClose): Promise<void> {
    this.#state = 'carrying';
    const { logger } = this.resolved;
    const started = performance.now();
    const deadline = started + this.resolved.reconnectTimeoutMs;
    const cut = this.sessions.cut();
    const sessionCount = this.sessions.open.size;
    logger.warn('remote server lost; carrying the sessions to a new connection', {
      code: lost.code,
      reason: lost.reason,
      sessions: sessionCount,
      inFlight: cut.editorRequests.length,
      timeoutMs: this.resolved.reconnectTimeoutMs,
    });
    this.#notify({ type: 'server-lost', code: lost.code, reason: lost.reason, sessions: sessionCount });
    // The editor stops waiting on questions no server will take an answer to.
    for (const id of cut.serverRequests)
      this.#deliver(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${id}}}`);
    let attempts = 0;
    let lastError = lost.reason;
    for (;;) {
      attempts += 1;
      const wait = Math.min(reconnectBackoffMs(attempts), Math.max(0, deadline - performance.now()));
      const stopped = await delay(wait, false, { signal: this.#stopCarrying.signal }).catch(() => true);
      if (stopped || this.#state !== 'carrying') return;
      const outcome = await this.#attempt();
      if (this.#state !== 'carrying') return;
      if (outcome.kind === 'carried') {
        this.#carried(outcome.sessions, cut.editorRequests, lost, attempts, started);
        return;
      }
      lastError = outcome.message;
      logger.debug?.('carry attempt failed', { attempt: attempts, error: lastError });
      if (outcome.kind === 'final' || performance.now() >= deadline) {
        this.#carryFailed(lost, lastError, attempts, started);
        return;
      }
    }
  }

  async #attempt(): Promise<
    { kind: 'carried'; sessions: CarriedSession[] } | { kind: 'retry' | 'final'; message: string }
  > {
    let connection: ClientConnection;
    try {
      connection = await this.reconnect();
    } catch (error) {
      const final =
        AcpRemoteError.isInstance(error) && error.code === AcpRemoteErrorCode.AuthenticationFailed;
      return { kind: final ? 'final' : 'retry', message: (error as Error).message };
    }
    if (this.#state !== 'carrying') {
      connection.close('the client ended meanwhile', 'abandon');
      return { kind: 'final', message: 'ended' };
    }
    const carry = new SessionCarry(connection.port, this.sessions);
    this.#carry = carry;
    this.#connection = connection;
    this.#attach(connection);
    try {
      const sessions = await carry.run();
      if (sessions.some((session) => session.carried)) return { kind: 'carried', sessions };
      connection.close('no session could be carried', 'abandon');
      const reasons = [...new Set(sessions.map((session) => (session.carried ? '' : session.message)))];
      return { kind: 'final', message: `no session could be carried: ${reasons.join('; ')}` };
    } catch (error) {
      connection.close('carrying the sessions failed', 'abandon');
      return { kind: 'retry', message: (error as Error).message };
    } finally {
      this.#carry = undefined;
    }
  }

  #carried(
    sessions: CarriedSession[],
    inFlight: string[],
    lost: PortClose,
    attempts: number,
    started: number,
  ): void {
    const carried = sessions.filter((session) => session.carried);
    const lostSessions = sessions.flatMap((session) =>
      session.carried ? [] : [{ sessionId: session.sessionId, message: session.message }],
    );
    for (const session of lostSessions) this.sessions.forget(session.sessionId);
    const downtimeMs = Math.round(performance.now() - started);
    this.resolved.logger.warn(
      'sessions carried to a new connection; requests in flight were answered with an error',
      {
        carried: carried.length,
        lost: lostSessions.length,
        method: carried[0]?.method,
        attempts,
        downtimeMs,
        ...(lostSessions.length > 0 ? { error: lostSessions[0]!.message } : {}),
      },
    );
    const error = wireErrors.sessionCarried(lost.code, lost.reason, this.transport);
    for (const id of inFlight) this.#deliver(errorResponseText(id, error));
    this.#state = 'connected';
    const queued = this.#queue.splice(0);
    this.#queuedBytes = 0;
    const { port } = this.#connection;
    for (const frame of queued) port.send(frame.payload, frame.route);
    const waiters = this.#drainWaiters;
    if (port.isFull) for (const waiter of waiters) port.whenDrained(waiter);
    else for (const waiter of [...waiters]) waiter();
    this.#notify({
      type: 'sessions-carried',
      carried: carried.map((session) => session.sessionId),
      lost: lostSessions,
      attempts,
      downtimeMs,
    });
  }

  #carryFailed(lost: PortClose, message: string, attempts: number, started: number): void {
    const downtimeMs = Math.round(performance.now() - started);
    this.resolved.logger.error('sessions could not be carried to a new connection', {
      attempts,
      downtimeMs,
      error: message,
    });
    this.#notify({ type: 'carry-failed', message, attempts, downtimeMs });
    this.#finish({ code: lost.code, reason: `${lost.reason}; sessions not carried: ${message}` });
  }

  /** Hands a frame this port writes itself to the editor's side (as if the server had sent it). */
  #deliver(text: string): void {
    this.#delivering = true;
    try {
      this.#handler?.(Buffer.from(text));
    } finally {
      this.#delivering = false;
    }
  }

  #finish(close: PortClose): void {
    if (this.#state === 'ended') return;
    this.#state = 'ended';
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#resolveClosed(close);
  }

  #notify(event: ConnectionEvent): void {
    try {
      this.resolved.onConnectionEvent?.(event);
    } catch (error) {
      this.resolved.logger.warn('onConnectionEvent threw', { error: String(error) });
    }
  }
}
