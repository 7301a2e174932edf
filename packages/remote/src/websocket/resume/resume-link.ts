// ResumeLink: one side of a resumable session (counts, acks, welcome, replay) under a WebSocketPort.
import type { PortClose } from '../../relay/frame-port.js';
import type { PortResume, SocketOwner, WebSocketPort } from '../websocket-port.js';
import { FRAME_OVERHEAD_BYTES, ReplayBuffer } from './replay-buffer.js';
import {
  ACK_DELAY_MS,
  ACK_EVERY_BYTES,
  ACK_EVERY_FRAMES,
  type ControlFrame,
  encodeControlFrame,
  parseControlFrame,
} from './resume-protocol.js';

/** What the client learnt from the server's `welcome`. */
export interface WelcomeInfo {
  readonly token: string;
  readonly windowMs: number;
  readonly bufferBytes: number;
}

/** How a resume attempt on a new socket ended, from the client's side. */
export type ResumeAttemptOutcome =
  /** `replayedFrames`: how many frames this side sent again. */
  | { readonly kind: 'resumed'; readonly replayedFrames: number }
  /** The server's `welcome` says it received fewer frames than this side still holds: they cannot be replayed. */
  | { readonly kind: 'overflow' }
  /** The new socket dropped before the `welcome` (try again). */
  | { readonly kind: 'dropped' }
  /** The session ended meanwhile (closed locally, or the socket was closed with a close frame). */
  | { readonly kind: 'ended'; readonly close: PortClose };

type Phase =
  /** Client, first connection: the server selected the subprotocol, its `welcome` has not come yet. */
  | 'negotiating'
  /** Frames flow; acknowledgements are exchanged. */
  | 'live'
  /** Client, a new socket after a drop: waiting for the server's `welcome` before replaying. */
  | 'resuming'
  | 'detached'
  | 'ended';

/**
 * The resume state of one session on one side (see docs/remote-transport.md, "Resume"): the data frames sent and not
 * yet acknowledged ({@link ReplayBuffer}), the count of data frames received and its acknowledgements (every 64
 * frames, 1 MiB or 100 ms, whichever comes first), and the control frames. The {@link WebSocketPort} calls it at its
 * frame entry and exit points; the owner (server registry or client reconnect loop) decides what a drop means.
 * Sequence numbers are implicit: both sides count data frames, so the JSON-RPC messages travel exactly as on the
 * plain wire.
 */
export class ResumeLink implements PortResume {
  readonly replay: ReplayBuffer;
  /** Both sides acknowledge what they receive. */
  readonly peerAcknowledges = true;
  /** Data frames received on the session so far. */
  received = 0;
  /** The port the link belongs to (set when the port is made). */
  port: WebSocketPort | undefined;
  private phase: Phase;
  private unacknowledgedFrames = 0;
  private unacknowledgedBytes = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  private welcome: WelcomeInfo | undefined;
  /** Server: the agent answered `initialize` (a client's side is worth resuming from the start). */
  private established: boolean;
  private attempt: ((outcome: ResumeAttemptOutcome) => void) | undefined;

  private constructor(
    readonly role: 'server' | 'client',
    bufferBytes: number,
    /** The message limit: the replay buffer is raised to fit one message of this size. */
    messageBytes: number,
    private readonly owner: SocketOwner,
    /** Server: the welcome it sends on every connection of the session (it never changes there). */
    welcome: WelcomeInfo | undefined,
  ) {
    this.replay = new ReplayBuffer(bufferBytes, messageBytes, FRAME_OVERHEAD_BYTES);
    this.phase = role === 'server' ? 'live' : 'negotiating';
    this.welcome = welcome;
    this.established = role === 'client';
  }

  /**
   * The server's side of a new session: it sends `welcome` (with `token`) as the first frame. `messageBytes`: the
   * message limit, one message of which the replay buffer holds beyond `welcome.bufferBytes`.
   */
  static forServer(welcome: WelcomeInfo, messageBytes: number, owner: SocketOwner): ResumeLink {
    return new ResumeLink('server', welcome.bufferBytes, messageBytes, owner, welcome);
  }

  /** The client's side of a new connection whose server selected the subprotocol: it waits for `welcome`. */
  static forClient(bufferBytes: number, messageBytes: number, owner: SocketOwner): ResumeLink {
    return new ResumeLink('client', bufferBytes, messageBytes, owner, undefined);
  }

  /** Data frames go on the wire now (otherwise they only wait in the replay buffer). */
  get live(): boolean {
    return this.phase === 'live' || this.phase === 'negotiating';
  }

  /** What the server said in `welcome` (client), or says (server); undefined before it. */
  get welcomed(): WelcomeInfo | undefined {
    return this.welcome;
  }

  /**
   * Whether a drop detaches (the session can be resumed) rather than ends the port: welcomed, not ended, and (on the
   * server) established.
   */
  get canDetach(): boolean {
    return this.welcome !== undefined && this.phase !== 'ended' && this.established;
  }

  /** The session is worth keeping for a resume from now on (server: its agent answered `initialize`). */
  establish(): void {
    this.established = true;
  }

  /** Called by the port it belongs to, once, when the port is made on its first socket. */
  start(port: WebSocketPort): void {
    this.port = port;
    this.replay.onOverflow = () => port.replayOverflowed(this.replay.limitBytes, this.replay.boundBytes);
    if (this.role === 'server') this.sendWelcome(false);
  }

  /** The port's socket dropped uncleanly. */
  detached(close: PortClose): void {
    this.phase = 'detached';
    this.stopAckTimer();
    const attempt = this.attempt;
    this.attempt = undefined;
    // A resume attempt whose socket dropped before `welcome` simply failed: the owner's loop goes on.
    if (attempt !== undefined) attempt({ kind: 'dropped' });
    else this.owner.detached(close);
  }

  /** The port ended. */
  ended(close: PortClose): void {
    this.phase = 'ended';
    this.stopAckTimer();
    this.replay.clear();
    this.attempt?.({ kind: 'ended', close });
    this.attempt = undefined;
    this.owner.ended(close);
  }

  /**
   * Server: a client resumed on a socket now attached to the port, having received `clientReceived` data frames
   * (checked with {@link ReplayBuffer.canReplayAfter} before). Sends `welcome` and replays what it missed.
   */
  resumeAsServer(clientReceived: number): number {
    this.replay.acknowledge(clientReceived);
    this.phase = 'live';
    this.sendWelcome(true);
    const frames = this.replay.framesAfter(clientReceived);
    this.port!.writeReplay(frames);
    return frames.length;
  }

  /**
   * Client: a new socket is about to be attached to the port; resolves once the server's `welcome` came and the replay
   * is written, or when the attempt failed. `resumed` is called at the welcome itself, before any frame that follows
   * it is handed on (so whoever is told sees the resume before the messages it brings).
   */
  resumeAsClient(resumed: (replayedFrames: number) => void): Promise<ResumeAttemptOutcome> {
    this.phase = 'resuming';
    return new Promise((resolve) => {
      this.attempt = (outcome) => {
        if (outcome.kind === 'resumed') resumed(outcome.replayedFrames);
        resolve(outcome);
      };
    });
  }

  /** A data frame is sent on the session: kept until acknowledged, and written now when frames go on the wire. */
  send(payload: Buffer | string): void {
    this.replay.record(payload);
    const port = this.port!;
    if (port.isLive) port.writeData(payload);
  }

  /**
   * A data frame arrived (the port counts it here, before handling it). Returns false when it must not be handled
   * (a protocol violation).
   */
  dataReceived(frame: Buffer): boolean {
    const bytes = frame.length;
    if (this.phase !== 'live') {
      if (this.phase === 'negotiating') {
        // The server echoed the subprotocol without speaking it (an older `ws` server selects whatever is offered):
        // this connection is the plain wire.
        this.port!.resume = undefined;
        return true;
      }
      this.port!.protocolViolation('a data frame came before the welcome of a resume');
      return false;
    }
    this.received += 1;
    this.unacknowledgedFrames += 1;
    this.unacknowledgedBytes += bytes;
    if (this.unacknowledgedFrames >= ACK_EVERY_FRAMES || this.unacknowledgedBytes >= ACK_EVERY_BYTES)
      this.acknowledge();
    else this.acknowledgeLater();
    return true;
  }

  /** A control (binary) frame arrived. */
  control(bytes: Buffer): void {
    const parsed = parseControlFrame(bytes);
    if (!parsed.ok) {
      this.port!.protocolViolation(parsed.error);
      return;
    }
    const frame = parsed.frame;
    if (frame === undefined) return; // a type of a later version: ignored
    if (frame.type === 'ack') {
      if (this.phase !== 'live') {
        this.port!.protocolViolation('an ack came before the welcome');
        return;
      }
      if (!this.replay.acknowledge(frame.received))
        this.port!.protocolViolation('an ack counts more frames than were sent');
      return;
    }
    this.onWelcome(frame);
  }

  private onWelcome(frame: Extract<ControlFrame, { type: 'welcome' }>): void {
    const port = this.port!;
    if (this.role === 'server') {
      port.protocolViolation('a client sent a welcome');
      return;
    }
    if (this.phase === 'negotiating' && !frame.resumed) {
      this.welcome = { token: frame.token, windowMs: frame.windowMs, bufferBytes: frame.bufferBytes };
      this.phase = 'live';
      return;
    }
    const attempt = this.attempt;
    if (this.phase !== 'resuming' || attempt === undefined || !frame.resumed) {
      port.protocolViolation('an unexpected welcome');
      return;
    }
    this.attempt = undefined;
    if (!this.replay.canReplayAfter(frame.received)) {
      attempt({ kind: 'overflow' });
      return;
    }
    this.welcome = { ...this.welcome!, windowMs: frame.windowMs, bufferBytes: frame.bufferBytes };
    this.replay.acknowledge(frame.received);
    this.phase = 'live';
    const frames = this.replay.framesAfter(frame.received);
    attempt({ kind: 'resumed', replayedFrames: frames.length });
    port.writeReplay(frames);
  }

  private sendWelcome(resumed: boolean): void {
    const welcome = this.welcome!;
    this.port!.writeControl(
      encodeControlFrame({
        type: 'welcome',
        token: welcome.token,
        resumed,
        received: this.received,
        windowMs: welcome.windowMs,
        bufferBytes: welcome.bufferBytes,
      }),
    );
  }

  private readonly onAckTimer = () => {
    this.ackTimer = undefined;
    if (this.unacknowledgedFrames > 0) this.acknowledge();
  };

  private acknowledge(): void {
    // Acknowledgements are cumulative: behind a send queue over the high-water mark (a peer that reads slowly or not
    // at all) queue none, or a peer sending cheap frames and reading nothing would grow this side's queue with them
    // without bound; the one sent once the queue is below the mark covers every frame received meanwhile.
    if (this.port!.queueFull) {
      this.acknowledgeLater();
      return;
    }
    this.unacknowledgedFrames = 0;
    this.unacknowledgedBytes = 0;
    this.port!.writeControl(encodeControlFrame({ type: 'ack', received: this.received }));
  }

  private acknowledgeLater(): void {
    if (this.ackTimer !== undefined) return;
    this.ackTimer = setTimeout(this.onAckTimer, ACK_DELAY_MS);
    this.ackTimer.unref();
  }

  private stopAckTimer(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    this.unacknowledgedFrames = 0;
    this.unacknowledgedBytes = 0;
  }
}
