// The WebSocket side of a relay: frames in and out, size limits, flow control, and the seam where resume attaches.
import type { Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { HIGH_WATER_BYTES, PauseReason, ReadGate } from '../relay/flow-control.js';
import type { FrameLog } from '../relay/frame-log.js';
import type { FramePort, PortClose } from '../relay/frame-port.js';
import { type MessageCounter, NO_RELAY_METRICS, type RelayMetrics } from '../relay/relay-metrics.js';
import { reportStall, StallGuard, type StallKind, type StallProbe } from '../relay/stall-guard.js';
import { tickCorker, underlyingSocket } from '../relay/write-batching.js';
import { CloseCode } from '../shared/constants.js';
import type { WatchSpec } from '../wire/frame-scan.js';
import { closeReason, inspectOversize, rawDataToBuffer } from '../wire/inbound.js';
import { checkInitializeMessage } from '../wire/initialize.js';
import type { RouteKeys } from '../wire/route-keys.js';
import { STREAM_RESUME_REFUSAL, type StreamResumeRefusal, streamResumeRefusal } from './stream-resume.js';

const TEXT_FRAME = { binary: false } as const;
/** A text message's fragment other than its last (`ws` sends a continuation frame after it). */
const TEXT_FRAGMENT = { binary: false, fin: false } as const;
/** The close code `ws` reports when no close frame was received (RFC 6455: never sent on the wire). */
const ABNORMAL_CLOSURE = 1006;
const BINARY_FRAME = { binary: true } as const;
/** Fallback poll for a socket whose TCP stream is not reachable (never with the `ws` versions we support). */
const DRAIN_POLL_MS = 10;
/**
 * Answers the relay writes itself to a peer whose queue is already over the high-water mark, beyond which the peer
 * is closed: it sends messages that need answers and reads none. Legitimate traffic never gets near it (a peer
 * that reads nothing gets few answers before its queue stalls); it bounds what a hostile peer can make us hold.
 */
const REPLY_DEBT_LIMIT_BYTES = 4 * HIGH_WATER_BYTES;
/** How long a socket closed for not reading (or not acknowledging) gets to flush its close frame before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Who decides what a dropped socket means for a resumable connection (both resume wires: `ResumeLink`, `DurableDial`):
 * the server's registry or the client's reconnect loop.
 */
export interface SocketOwner {
  /** The socket dropped uncleanly (the connection is resumable): the port waits for a new one. */
  detached(close: PortClose): void;
  /** The port ended (for good). */
  ended(close: PortClose): void;
}

/**
 * What the port calls of a resume layer (`ResumeLink`, resume-link.ts), at its frame entry and exit points and when
 * its socket closes: the one seam between the relay core and resume.
 */
export interface PortResume {
  /**
   * The data frames kept for the peer (a bounded history): what feeds the port waits while it is full only when no
   * socket carries the frames (detached, resuming); live, only the socket's queue holds sources back.
   */
  readonly replay: {
    readonly isFull: boolean;
    /** Bytes held. */
    readonly bytes: number;
    /** Frames the peer acknowledged so far (0 where the wire has no acknowledgements). */
    readonly acknowledged: number;
  };
  /** Data frames go on the wire now (otherwise they only wait in the replay buffer). */
  readonly live: boolean;
  /** Whether an unclean drop detaches the socket (the session can be resumed) rather than ends the port. */
  readonly canDetach: boolean;
  /**
   * Whether the peer acknowledges what it receives (acpkit.resume.v1): only then do the bytes kept wait on the peer,
   * for the stall guard. The durable-resume draft keeps messages for a time, acknowledged by no one.
   */
  readonly peerAcknowledges: boolean;
  /**
   * The members the layer reads of each frame sent (the durable-resume draft: where its cursor goes, and what its
   * turn states read): the port's `routeWatch`, so the relay's one scan of a frame hands them to {@link send}.
   */
  readonly routeWatch?: WatchSpec;
  /** The port was made on its first socket. */
  start(port: WebSocketPort): void;
  /** The session is worth keeping from now on (see {@link WebSocketPort.markEstablished}). */
  establish(): void;
  /**
   * A data frame is sent on the session: the layer keeps it and, while {@link live} and attached, writes it through
   * {@link WebSocketPort.writeData} (the bytes given, or with its cursor spliced in).
   */
  send(payload: Buffer | string, route: RouteKeys | undefined): void;
  /** A data frame arrived; false when it must not be handled (a protocol violation). */
  dataReceived(frame: Buffer): boolean;
  /** A binary (control) frame arrived; absent: binary frames are refused as on the plain wire (1003). */
  control?(bytes: Buffer): void;
  /** The socket dropped uncleanly and was detached. */
  detached(close: PortClose): void;
  /** The port ended. */
  ended(close: PortClose): void;
}

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
  /**
   * The connection negotiated resume (`acpkit.resume.v1`): data frames are counted and kept until acknowledged,
   * binary frames are its control frames, and an unclean drop detaches the socket instead of ending the port.
   */
  readonly resume?: PortResume;
  /** What a server counts (messages, bytes, refused frames); default: nothing. */
  readonly metrics?: RelayMetrics;
  /**
   * Close the connection (1008, with the reason, logged) when it makes no progress for this long while something
   * waits on the peer: data it does not read, or (resume) frames it does not acknowledge (see {@link StallGuard}).
   * 0 or absent: never.
   */
  readonly stallTimeoutMs?: number;
  /**
   * `initialize`: the RFD WebSocket's rule (ACP's standard transport, served on `<mount>`): the first data frame
   * must be an `initialize` request with an id, else the connection closes with 1002 and the SDK's reason. Checked
   * on that frame only.
   */
  readonly firstMessage?: 'initialize';
  /**
   * How a first frame that is `stream/resume` is refused on this port (default: `unsupported`, a server that keeps
   * nothing for it). A server that resumes RFD WebSockets decides a socket's first `stream/resume` before the port
   * exists, so one reaching the port is a repeat on a socket already refused (`invalid`).
   */
  readonly streamResumeRefusal?: StreamResumeRefusal;
}

/**
 * Why a connection's first data frame breaks the RFD WebSocket's rule, in the TypeScript SDK's words; the answer
 * to a durable-resume `stream/resume` (refused: see {@link streamResumeRefusal}); else undefined.
 */
function firstMessageRefusal(
  frame: Buffer,
  refusal: StreamResumeRefusal | undefined,
): string | { readonly resumeRefusal: string[] } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(frame.toString('utf8'));
  } catch {
    return 'First message must be initialize';
  }
  const resumeRefusal = streamResumeRefusal(message, refusal);
  if (resumeRefusal !== undefined) return { resumeRefusal };
  const check = checkInitializeMessage(message);
  if (check.kind === 'other') return 'First message must be initialize';
  return check.kind === 'missing-id' ? 'Initialize request must include an ID' : undefined;
}

/**
 * Whether `ws` wrote a close frame on `socket` (its own protocol-error closes, a stall guard's close): such a close
 * was deliberate even when the peer never answered it. `ws` has no public flag for it; `_closeFrameSent` has been
 * its field since v1. Missing, only the port's own closes count as deliberate.
 */
function closeFrameSent(socket: WebSocket): boolean {
  return (socket as unknown as { _closeFrameSent?: unknown })._closeFrameSent === true;
}

/**
 * The WebSocket side of a relay: frames in (binary refused with 1003, oversize answered or closed with 1009, the
 * rest handed on as bytes), frames out (corked per event-loop turn, so many frames become one `writev`), the
 * outbound queue against the relays' high-water mark, and reading paused and resumed by reason. {@link closed}
 * settles when the connection has ended.
 *
 * With {@link WebSocketPortOptions.resume} the port outlives its socket: an unclean drop (no close frame either way)
 * detaches the socket, frames sent meanwhile wait in the replay buffer, and {@link attach} puts a new socket under
 * the same port, so whatever relays through it sees one continuous stream. Without it, nothing on the hot path
 * changes: a frame costs one extra field check.
 */
export class WebSocketPort implements FramePort, StallProbe {
  readonly transport = 'websocket';
  readonly reading: ReadGate;
  /** Settles once, when the connection has ended (with resume: when the session has, not at a drop). */
  readonly closed: Promise<PortClose>;
  /** The resume state; undefined on the plain wire (and after a client found its server does not speak it). */
  resume: PortResume | undefined;
  /** What the resume layer reads of each frame sent (the durable-resume draft's), handed over by the relay's scan. */
  readonly routeWatch: WatchSpec | undefined;
  private current: WebSocket;
  private state: 'attached' | 'detached' | 'ended' = 'attached';
  private tcp: Writable | undefined;
  private cork: () => void;
  private handler: ((frame: Buffer) => void) | undefined;
  private readonly fullListeners: Array<() => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private drainHook: { stream: Writable; listener: () => void } | undefined;
  private drainPoll: NodeJS.Timeout | undefined;
  private replyDebt = 0;
  /** The RFD WebSocket's first-message rule still applies (no data frame handled yet). */
  private awaitingInitialize: boolean;
  private draining = false;
  /** The port closed the current socket itself (its close is deliberate whatever code the socket reports). */
  private closeRequested = false;
  /** A close asked for while no socket was attached: sent once the peer is back and has its replay. */
  private pendingClose: PortClose | undefined;
  private resolveClosed!: (close: PortClose) => void;
  /** The server's metrics (a no-op object otherwise): the relay and the SDK stream count their refusals on it too. */
  readonly metrics: RelayMetrics;
  // Per-message counting: a few integer adds when the server has metrics on, a no-op object otherwise (no branch).
  private readonly received: MessageCounter;
  private readonly sent: MessageCounter;
  private readonly stallGuard: StallGuard;

  constructor(
    socket: WebSocket,
    private readonly options: WebSocketPortOptions,
  ) {
    this.resume = options.resume;
    this.routeWatch = options.resume?.routeWatch;
    this.awaitingInitialize = options.firstMessage === 'initialize';
    this.metrics = options.metrics ?? NO_RELAY_METRICS;
    this.received = this.metrics.received;
    this.sent = this.metrics.sent;
    this.reading = new ReadGate(
      () => this.current.pause(),
      () => {
        const current = this.current;
        if (this.state === 'attached' && current.readyState === current.OPEN) current.resume();
      },
    );
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.current = socket;
    this.tcp = underlyingSocket(socket);
    this.cork = tickCorker(this.tcp);
    this.stallGuard = new StallGuard(this, options.stallTimeoutMs ?? 0, (kind, stalledForMs) =>
      this.stalled(kind, stalledForMs),
    );
    this.bind(socket);
    this.resume?.start(this);
  }

  /** The socket under the port now (after a drop, the one that dropped until a new one is attached). */
  get socket(): WebSocket {
    return this.current;
  }

  /** Whether frames can still be sent: the socket is open, or (with resume) the session goes on. */
  get isOpen(): boolean {
    if (this.state === 'ended') return false;
    if (this.resume !== undefined) return true;
    return this.current.readyState === this.current.OPEN;
  }

  /** Who is on the other end (`client`, `remote`), for log lines and metric labels. */
  get peer(): string {
    return this.options.peer;
  }

  /** Whether a socket is attached now (false while a resumable session waits for its peer). */
  get isAttached(): boolean {
    return this.state === 'attached';
  }

  /**
   * Whether the attached socket is being closed on purpose (this side sent or asked for a close frame: the agent
   * exited, a protocol error, a shutdown): the connection is ending, and a resume must not bring it back.
   */
  get isClosing(): boolean {
    return this.state === 'attached' && (this.closeRequested || closeFrameSent(this.current));
  }

  /** Whether frames go on the wire now: a socket is attached and (with resume) its handshake is done. */
  get isLive(): boolean {
    return this.state === 'attached' && (this.resume === undefined || this.resume.live);
  }

  /** Bytes waiting in the attached socket's send buffer. */
  get bufferedAmount(): number {
    return this.state === 'attached' ? this.current.bufferedAmount : 0;
  }

  /**
   * Bytes sent and not yet acknowledged by the peer (acpkit.resume.v1); 0 on the plain wire and where the peer
   * acknowledges nothing (the durable-resume draft keeps messages for a while, not until acknowledged).
   */
  get unacknowledgedBytes(): number {
    const resume = this.resume;
    return resume?.peerAcknowledges === true ? resume.replay.bytes : 0;
  }

  /** Bytes kept for a resume (the replay buffer); 0 on the plain wire. */
  get replayBytes(): number {
    return this.resume?.replay.bytes ?? 0;
  }

  /** Frames the peer acknowledged so far (resume); 0 on the plain wire. */
  get acknowledgedFrames(): number {
    return this.resume?.replay.acknowledged ?? 0;
  }

  /** Whether this side reads the attached socket now (not paused for backpressure). */
  get isReading(): boolean {
    return !this.reading.isPaused;
  }

  /**
   * Whether whatever feeds the port should wait: the socket's queue is over the high-water mark (the peer reads
   * slower than we send), or, while no socket carries frames (resume: detached or resuming), the replay buffer holds
   * as much as it should before the next connection. A live connection never waits for acknowledgements: they
   * arrive on the socket this side may itself have stopped reading, and waiting for them could stall both ways.
   */
  get isFull(): boolean {
    return this.queueFull || (!this.isLive && (this.resume?.replay.isFull ?? false));
  }

  /** Whether the attached socket's send queue is over the high-water mark (the peer reads slower than we send). */
  get queueFull(): boolean {
    return this.state === 'attached' && this.current.bufferedAmount > HIGH_WATER_BYTES;
  }

  /** Calls `listener` each time the port becomes full (then `whenDrained` tells when it has room again). */
  onFull(listener: () => void): void {
    this.fullListeners.push(listener);
  }

  /**
   * Hands every inbound text frame within the size limit to `handle`, as bytes. Binary frames close the socket
   * with 1003 (with resume they are its control frames); an oversized request whose id can be recovered is answered
   * with an error carrying that id, any other oversized message closes with 1009. Call it in the turn the port was
   * made: frames that arrive before are not kept.
   */
  receive(handle: (frame: Buffer) => void): () => void {
    this.handler = handle;
    if (this.state === 'attached') {
      this.current.on('message', this.onMessage);
      // A client socket is handed over paused (see openWebSocket): read now that someone listens.
      if (!this.reading.isPaused) this.current.resume();
    }
    return () => {
      this.handler = undefined;
      this.current.off('message', this.onMessage);
    };
  }

  /**
   * Sends one text frame (the bytes of one JSON-RPC message); `route`, when the port has a {@link routeWatch}, is
   * what the relay's scan read of it.
   */
  send(payload: Buffer | string, route?: RouteKeys): void {
    const resume = this.resume;
    if (resume === undefined ? !this.isOpen : this.state === 'ended') return;
    // Counted once, when handed over: a replay after a resume is not a new message.
    this.sent.count(payload);
    if (resume !== undefined) {
      // Kept, and written when live; while not live only the replay's fill holds sources back.
      resume.send(payload, route);
      if (this.isLive ? this.queueFull : resume.replay.isFull) this.full();
      return;
    }
    this.cork();
    this.current.send(payload, TEXT_FRAME);
    if (this.queueFull) this.full();
  }

  /** Writes one data frame on the attached socket (the resume layer's way out: live frames and replays). */
  writeData(frame: Buffer | string): void {
    this.cork();
    this.current.send(frame, TEXT_FRAME);
  }

  /**
   * Writes one data message as consecutive fragments (RFC 6455 continuation frames) on the attached socket: a large
   * message with a few bytes spliced in goes out as views of its parts, never copied whole. Peers reassemble it.
   */
  writeFragments(parts: ReadonlyArray<Buffer | string>): void {
    this.cork();
    const last = parts.length - 1;
    for (let index = 0; index <= last; index += 1)
      this.current.send(parts[index]!, index === last ? TEXT_FRAME : TEXT_FRAGMENT);
  }

  /**
   * Hands the port a frame read from its socket before the port existed (the acceptor read an RFD WebSocket's first
   * frame to see whether it resumes a connection): handled as if it arrived now. Call it after {@link receive}.
   */
  deliver(data: RawData, isBinary: boolean): void {
    this.onMessage(data, isBinary);
  }

  /** Hands a message the resume layer made itself (an answer on the server's behalf) to whoever receives. */
  handOn(frame: Buffer): void {
    this.handler?.(frame);
  }

  /** Sends an answer the relay writes itself (a JSON-RPC error for a refused frame, ...). */
  reply(text: string): void {
    if (!this.isOpen) return;
    if (this.queueFull) {
      this.replyDebt += text.length;
      if (this.replyDebt > REPLY_DEBT_LIMIT_BYTES) {
        this.metrics.limitReached('reply_debt');
        this.options.log.logger.warn(
          'closing connection: the peer sends messages that need answers and reads none',
          {
            ...this.options.log.fields,
            queuedBytes: this.current.bufferedAmount,
          },
        );
        this.close(CloseCode.PolicyViolation, 'the peer reads none of the answers to what it sends');
        // The close frame queues behind everything the peer does not read: don't wait ws's 30 s for its answer.
        const socket = this.current;
        setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
        return;
      }
    }
    this.send(text);
  }

  /** Calls `callback` once the port has room again: everything queued handed to the kernel, the replay not full. */
  whenDrained(callback: () => void): void {
    this.drainWaiters.push(callback);
    this.checkDrained(true);
  }

  /**
   * Starts the close handshake (reason cut to the protocol's limit) unless the socket is already closing. With
   * resume and no socket attached, the close waits for the peer to come back and receive what it missed.
   */
  close(code: number, reason?: string): void {
    if (this.state === 'ended') return;
    if (!this.isLive) {
      this.pendingClose ??= { code, reason: reason ?? '' };
      return;
    }
    this.closeSocket(code, reason);
  }

  /**
   * Writes the close frame now, for a process that is exiting (no event-loop turn follows): the write batched for this
   * turn is released first, so the frame reaches the kernel before the process ends, unless unsent data waits before
   * it. Nothing happens without a live socket (a session waiting for a resume has nobody to tell).
   */
  closeAtExit(code: number, reason: string): void {
    const socket = this.current;
    if (!this.isLive || socket.readyState !== socket.OPEN) return;
    const tcp = this.tcp as (Writable & { writableCorked?: number }) | undefined;
    while (tcp !== undefined && (tcp.writableCorked ?? 0) > 0) tcp.uncork();
    this.closeSocket(code, reason);
  }

  /**
   * Ends the connection because the server stops: a close frame (1001, `reason`) when frames go on the wire now, and
   * the socket destroyed once `hardStop` settles (the peer may never answer, and `ws` would wait 30 s for it); at once
   * when no socket is attached (a resumable session waiting for its client has nobody to tell).
   */
  goAway(reason: string, hardStop: Promise<unknown>): void {
    const close = { code: CloseCode.GoingAway, reason };
    if (!this.isLive) {
      this.terminate(close);
      return;
    }
    this.close(close.code, close.reason);
    void hardStop.then(() => this.terminate(close));
  }

  /**
   * Ends the connection now: the socket (if any) is destroyed without a handshake and {@link closed} settles with
   * `close`. For shutdowns and deadlines; {@link close} is the graceful way.
   */
  terminate(close: PortClose = { code: ABNORMAL_CLOSURE, reason: '' }): void {
    if (this.state === 'ended') return;
    const socket = this.current;
    const attached = this.state === 'attached';
    this.end(close);
    if (attached) socket.terminate();
  }

  /**
   * Puts `socket` under the port (resume): a detached port is attached again, an attached one lets its old socket
   * go (a peer that came back before this side noticed the drop). False when the port has ended or is closing.
   */
  attach(socket: WebSocket): boolean {
    if (this.state === 'ended' || this.isClosing) return false;
    if (this.state === 'attached') {
      const old = this.current;
      this.unbind(old);
      old.terminate();
    }
    this.current = socket;
    this.tcp = underlyingSocket(socket);
    this.cork = tickCorker(this.tcp);
    this.closeRequested = false;
    this.state = 'attached';
    this.bind(socket);
    if (this.handler !== undefined) socket.on('message', this.onMessage);
    if (this.reading.isPaused) socket.pause();
    else socket.resume();
    return true;
  }

  /** Writes control frame bytes (resume) on the attached socket. */
  writeControl(bytes: Buffer): void {
    if (this.state !== 'attached' || this.current.readyState !== this.current.OPEN) return;
    this.cork();
    this.current.send(bytes, BINARY_FRAME);
  }

  /**
   * Writes frames recorded earlier (a replay) on the attached socket, then the close asked for while the peer was
   * away, if any.
   */
  writeReplay(frames: ReadonlyArray<Buffer | string>): void {
    const socket = this.current;
    if (this.state !== 'attached' || socket.readyState !== socket.OPEN) return;
    this.cork();
    for (const frame of frames) socket.send(frame, TEXT_FRAME);
    this.replayWritten();
  }

  /**
   * A replay was written on the attached socket (with {@link writeData}): the close asked for while the peer was
   * away goes now, if any, and whoever waits for room is told.
   */
  replayWritten(): void {
    if (this.state !== 'attached') return;
    const pending = this.pendingClose;
    this.pendingClose = undefined;
    if (pending !== undefined) this.closeSocket(pending.code, pending.reason);
    else if (this.queueFull) this.full();
    this.checkDrained();
  }

  /**
   * The replay buffer dropped frames the peer has not acknowledged (it holds `bufferBytes` plus one message at most):
   * the session stays live, but cannot be resumed until the peer acknowledges past them. Told once per stretch.
   */
  replayOverflowed(bufferBytes: number, boundBytes: number): void {
    this.metrics.limitReached('replay_buffer');
    this.options.log.logger.warn(
      `replay buffer over its bound: the session cannot be resumed until the ${this.options.peer} acknowledges what it received`,
      { ...this.options.log.fields, bufferBytes, boundBytes },
    );
  }

  /**
   * The session carries a conversation worth keeping (its agent answered `initialize`): from now on an unclean drop
   * detaches it for a resume. Before, a drop ends it: a server keeps no agent that never spoke for a client that left.
   */
  markEstablished(): void {
    this.resume?.establish();
  }

  /** Closes the attached socket for a violation of the resume protocol (1002). */
  protocolViolation(message: string): void {
    this.metrics.frameRefused(this.options.peer, 'protocol_error');
    this.options.log.logger.warn('closing connection: resume protocol violation', {
      ...this.options.log.fields,
      error: message,
    });
    this.closeSocket(CloseCode.ProtocolError, message);
  }

  /** Ends the port (also used by the resume owners: window expired, reconnect failed). */
  end(close: PortClose): void {
    if (this.state === 'ended') return;
    this.stallGuard.stop();
    if (this.state === 'attached') this.unbind(this.current);
    this.state = 'ended';
    this.drainWaiters.length = 0;
    this.resume?.ended(close);
    this.resolveClosed(close);
  }

  private closeSocket(code: number, reason: string | undefined): void {
    const socket = this.current;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
      this.closeRequested = true;
      socket.close(code, reason === undefined ? undefined : closeReason(reason));
    }
  }

  /** No progress for `stallTimeoutMs`: logged, counted, closed with 1008 and the reason. */
  private stalled(kind: StallKind, stalledForMs: number): void {
    this.close(CloseCode.PolicyViolation, reportStall(this, this.options.log, kind, stalledForMs));
    // A close frame queued behind data the peer does not read never arrives: don't wait ws's 30 s for its answer.
    const socket = this.current;
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  private bind(socket: WebSocket): void {
    this.stallGuard.start();
    if (socket.readyState === socket.CLOSED) {
      queueMicrotask(() => this.socketClosed(socket, CloseCode.Normal, ''));
      return;
    }
    socket.once('close', (code: number, reason: Buffer) =>
      this.socketClosed(socket, code, reason.toString('utf8')),
    );
  }

  private unbind(socket: WebSocket): void {
    socket.off('message', this.onMessage);
    this.releaseDrainHook();
  }

  private socketClosed(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.current || this.state !== 'attached') return;
    const resume = this.resume;
    // Unclean: neither side sent a close frame (a network drop, a missed pong's terminate).
    const unclean = code === ABNORMAL_CLOSURE && !this.closeRequested && !closeFrameSent(socket);
    if (resume !== undefined && unclean && resume.canDetach) {
      this.unbind(socket);
      this.state = 'detached';
      resume.detached({ code, reason });
      this.checkDrained();
      return;
    }
    this.end({ code, reason });
  }

  private readonly onMessage = (data: RawData, isBinary: boolean) => {
    const resume = this.resume;
    if (isBinary) {
      if (resume?.control !== undefined) {
        resume.control(rawDataToBuffer(data));
        return;
      }
      this.metrics.frameRefused(this.options.peer, 'binary');
      this.options.log.warn('closing connection', {
        code: CloseCode.UnsupportedData,
        reason: 'binary frames are not supported',
      });
      this.close(CloseCode.UnsupportedData, 'binary frames are not supported');
      return;
    }
    const frame = rawDataToBuffer(data);
    if (resume !== undefined && !resume.dataReceived(frame)) return;
    this.received.count(frame);
    if (this.awaitingInitialize) {
      const refusal = firstMessageRefusal(frame, this.options.streamResumeRefusal);
      if (typeof refusal === 'object') {
        // Refused, never a live stream: the socket stays, as a new connection still waiting for initialize.
        this.options.log.logger.info('stream/resume refused', {
          ...this.options.log.fields,
          reason: (this.options.streamResumeRefusal ?? STREAM_RESUME_REFUSAL).reason,
        });
        for (const text of refusal.resumeRefusal) this.reply(text);
        return;
      }
      if (refusal !== undefined) {
        this.metrics.frameRefused(this.options.peer, 'protocol_error');
        this.options.log.warn('closing connection', { code: CloseCode.ProtocolError, reason: refusal });
        this.close(CloseCode.ProtocolError, refusal);
        return;
      }
      this.awaitingInitialize = false;
    }
    const { maxMessageBytes } = this.options;
    if (frame.length <= maxMessageBytes) {
      this.handler?.(frame);
      return;
    }
    this.metrics.frameRefused(this.options.peer, 'oversize');
    const action = inspectOversize(frame, maxMessageBytes, frame.length);
    if (action.type === 'reply') {
      this.options.log.warn(`${this.options.peer} sent an ${action.note}`, { maxMessageBytes });
      this.reply(action.text);
    } else {
      this.options.log.warn('closing connection', { code: action.code, reason: action.reason });
      this.close(action.code, action.reason);
    }
  };

  private full(): void {
    // A peer that does not read gets no more work.
    if (this.options.pauseWhenFull && this.queueFull) this.reading.pause(PauseReason.OwnQueueFull);
    if (this.draining) return;
    this.draining = true;
    for (const listener of this.fullListeners) listener();
    this.whenDrained(() => {
      this.draining = false;
      this.replyDebt = 0;
      this.reading.resume(PauseReason.OwnQueueFull);
    });
  }

  /**
   * Runs the drain waiters once nothing holds them: the socket's queue was written out, and (while no socket carries
   * frames) the replay buffer has room.
   */
  private checkDrained(immediate = false): void {
    if (this.drainWaiters.length === 0 || this.state === 'ended') return;
    if (!this.isLive && this.resume?.replay.isFull) return; // writeReplay() checks again on the next connection
    if (this.state === 'attached') {
      const tcp = this.tcp;
      if (tcp === undefined) {
        this.pollDrain();
        return;
      }
      if (tcp.writableLength > 0) {
        if (this.drainHook === undefined) {
          const listener = () => {
            this.drainHook = undefined;
            this.checkDrained();
          };
          this.drainHook = { stream: tcp, listener };
          tcp.once('drain', listener);
        }
        return;
      }
    }
    const waiters = this.drainWaiters.splice(0);
    const run = () => {
      for (const waiter of waiters) waiter();
    };
    if (immediate) queueMicrotask(run);
    else run();
  }

  private pollDrain(): void {
    if (this.drainPoll !== undefined) return;
    this.drainPoll = setInterval(() => {
      if (this.state === 'attached' && this.current.bufferedAmount > 0 && this.isOpen) return;
      clearInterval(this.drainPoll);
      this.drainPoll = undefined;
      const waiters = this.drainWaiters.splice(0);
      for (const waiter of waiters) waiter();
    }, DRAIN_POLL_MS);
    this.drainPoll.unref();
  }

  private releaseDrainHook(): void {
    const hook = this.drainHook;
    if (hook === undefined) return;
    this.drainHook = undefined;
    hook.stream.off('drain', hook.listener);
  }
}
