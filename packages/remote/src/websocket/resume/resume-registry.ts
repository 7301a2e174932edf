// The server's resume registry: where resume requests find their session, kept across a drop by the server's keeper.
import type { WebSocket } from 'ws';
import type { PortClose } from '../../relay/frame-port.js';
import { type DetachedSession, isSameClient, type SessionKeeper } from '../../sessions/session-keeper.js';
import { CloseCode } from '../../shared/constants.js';
import type { RemoteLogger } from '../../shared/logger.js';
import { ResumeLink } from './resume-link.js';
import { newResumeToken, type ResumeRefusalReason, resumeTokenKey } from './resume-protocol.js';

/**
 * Resume events of one server as plain counters, kept by the server's resume registry and read at scrape time (a
 * frame never touches them). `refused` is keyed by {@link ResumeRefusalReason}.
 */
export interface ResumeCounters {
  /** Sessions that negotiated resume. */
  sessions: number;
  /** Drops that detached a session (it waited for its client). */
  detached: number;
  /** Resumes accepted. */
  accepted: number;
  /** Resumes refused, by reason. */
  readonly refused: Record<ResumeRefusalReason, number>;
  /** Detached sessions ended because their window passed. */
  expired: number;
}

/** Resume settings of a server. */
export interface ResumeSettings {
  /** How long a dropped session waits for its client. */
  readonly windowMs: number;
  /** Replay buffer bound per session. */
  readonly bufferBytes: number;
  /** The message limit: each replay buffer is raised to fit one message of this size. */
  readonly messageBytes: number;
  /** This instance's name among several (`instanceId`): every resume token it issues starts with `<name>.`. */
  readonly instanceId?: string | undefined;
}

/** The verdict on a resume request. */
export type ResumeVerdict =
  | { readonly ok: true; readonly session: ResumableSession }
  | { readonly ok: false; readonly reason: ResumeRefusalReason; readonly detail: string };

/** One resumable session on the server. */
export class ResumableSession {
  readonly link: ResumeLink;
  detachedAt: number | undefined;
  /** What the server's session keeper holds while this one waits for its client. */
  waiting: DetachedSession | undefined;

  constructor(
    readonly key: string,
    readonly identity: Buffer,
    readonly connectionId: number,
    link: (session: ResumableSession) => ResumeLink,
  ) {
    this.link = link(this);
  }
}

/**
 * The server's resumable WebSocket sessions: where a resume request finds its session. A dropped session waits for
 * its client in the server's {@link SessionKeeper} (shared with its Streamable HTTP connections: one identity rule,
 * one bound, one memory of ended sessions), which ends it when its window passes or the bound needs its room (its
 * resume is then refused as `expired` or `ended`); a drain's grace or a shutdown ends it earlier through its
 * connection's `shutdown`. Resume tokens live in memory only: a restarted server knows none (`unknown`).
 */
export class ResumeRegistry {
  readonly counters: ResumeCounters = {
    sessions: 0,
    detached: 0,
    accepted: 0,
    refused: { unknown: 0, expired: 0, ended: 0, overflow: 0, invalid: 0 },
    expired: 0,
  };
  private readonly sessions = new Map<string, ResumableSession>();

  constructor(
    readonly settings: ResumeSettings,
    /** Where sessions wait for their client, whatever their transport, and how ended ones ended. */
    private readonly keeper: SessionKeeper,
    private readonly logger: RemoteLogger,
  ) {}

  /** The registry of a server with these options: none when resume is off (`resumeWindowMs` 0). */
  static forServer(
    options: {
      readonly resumeWindowMs: number;
      readonly resumeBufferBytes: number;
      readonly maxMessageBytes: number;
      readonly instanceId?: string | undefined;
    },
    keeper: SessionKeeper,
    logger: RemoteLogger,
  ): ResumeRegistry | undefined {
    if (options.resumeWindowMs <= 0) return undefined;
    const settings = {
      windowMs: options.resumeWindowMs,
      bufferBytes: options.resumeBufferBytes,
      messageBytes: options.maxMessageBytes,
      instanceId: options.instanceId,
    };
    return new ResumeRegistry(settings, keeper, logger);
  }

  /** A new session on a connection that selected the subprotocol: the link to give its port. */
  open(identity: Buffer, connectionId: number): ResumeLink {
    const token = newResumeToken(this.settings.instanceId);
    const key = resumeTokenKey(token);
    const session = new ResumableSession(key, identity, connectionId, (self) =>
      ResumeLink.forServer(
        { token, windowMs: this.settings.windowMs, bufferBytes: this.settings.bufferBytes },
        this.settings.messageBytes,
        {
          detached: (close) => this.detached(self, close),
          ended: (close) => this.ended(self, close),
        },
      ),
    );
    this.sessions.set(key, session);
    this.counters.sessions += 1;
    return session.link;
  }

  /** Decides on a resume request (at the upgrade, before anything is accepted), and counts a refusal. */
  check(token: string, received: number, identity: Buffer): ResumeVerdict {
    const key = resumeTokenKey(token);
    const session = this.sessions.get(key);
    let verdict: ResumeVerdict;
    if (session === undefined) {
      const ending = this.keeper.endOf(key)?.reason;
      verdict = { ok: false, reason: ending ?? 'unknown', detail: ending ?? 'unknown' };
    } else if (!isSameClient(session.identity, identity)) {
      // Not told apart from an unknown token on the wire: the peer learns nothing about other peers' sessions.
      verdict = { ok: false, reason: 'unknown', detail: 'identity' };
    } else if (session.link.port?.isClosing) {
      // A close frame ends the session, even while its peer has not answered it yet.
      verdict = { ok: false, reason: 'ended', detail: 'closing' };
    } else if (received > session.link.replay.sent) {
      verdict = { ok: false, reason: 'invalid', detail: 'received count above the frames sent' };
    } else if (!session.link.replay.canReplayAfter(received)) {
      verdict = { ok: false, reason: 'overflow', detail: 'overflow' };
      // The client's count can only grow from here on, never back into what was dropped: end the session now.
      this.remember(key, 'overflow');
      this.logger.info('resume impossible; session ended', {
        connection: session.connectionId,
        reason: 'overflow',
        bufferBytes: this.settings.bufferBytes,
      });
      session.link.port?.terminate({ code: CloseCode.ResumeFailed, reason: 'resume impossible: overflow' });
    } else {
      verdict = { ok: true, session };
    }
    if (!verdict.ok) this.counters.refused[verdict.reason] += 1;
    return verdict;
  }

  /** Refusals decided before a session was looked up (malformed headers, resume off) are counted here too. */
  countRefusal(reason: ResumeRefusalReason): void {
    this.counters.refused[reason] += 1;
  }

  /**
   * Puts `socket` under the session found by {@link check} and replays what the client missed. False when the
   * session ended in between (the socket is then closed).
   */
  attach(session: ResumableSession, socket: WebSocket, received: number, remoteAddress: unknown): boolean {
    const port = session.link.port;
    if (port === undefined || !port.attach(socket)) {
      socket.close(CloseCode.ResumeFailed, 'ended: the session ended during the resume');
      return false;
    }
    const wasDetached = session.detachedAt !== undefined;
    const downtimeMs = wasDetached ? Math.round(performance.now() - session.detachedAt!) : 0;
    this.reattached(session);
    const replayedFrames = session.link.resumeAsServer(received);
    this.counters.accepted += 1;
    this.logger.info('connection resumed', {
      connection: session.connectionId,
      remoteAddress,
      downtimeMs,
      replayedFrames,
      takeover: !wasDetached,
    });
    return true;
  }

  private detached(session: ResumableSession, close: PortClose): void {
    session.detachedAt = performance.now();
    this.counters.detached += 1;
    const { windowMs } = this.settings;
    this.logger.info('connection interrupted; session kept for resume', {
      connection: session.connectionId,
      code: close.code,
      windowMs,
      unacknowledgedFrames: session.link.replay.heldFrames,
    });
    session.waiting = {
      connection: session.connectionId,
      end: (cause, reason) => {
        session.waiting = undefined;
        if (cause === 'evicted') {
          this.remember(session.key, 'ended');
          session.link.port?.terminate({ code: close.code, reason });
          return;
        }
        this.counters.expired += 1;
        this.logger.info('resume window expired; session ended', {
          connection: session.connectionId,
          windowMs,
        });
        this.remember(session.key, 'expired');
        session.link.port?.terminate({ code: close.code, reason: 'resume window expired' });
      },
    };
    this.keeper.detach(session.waiting, windowMs);
  }

  private reattached(session: ResumableSession): void {
    if (session.waiting !== undefined) this.keeper.reattach(session.waiting);
    session.waiting = undefined;
    session.detachedAt = undefined;
  }

  private ended(session: ResumableSession, _close: PortClose): void {
    this.reattached(session);
    this.sessions.delete(session.key);
    if (this.keeper.endOf(session.key) === undefined) this.remember(session.key, 'ended');
  }

  private remember(key: string, reason: 'expired' | 'ended' | 'overflow'): void {
    this.keeper.remember(key, { reason });
  }
}
