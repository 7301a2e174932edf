// What a resumable client connection tells through onConnectionEvent: ConnectionEvent and ResumeFailureReason.
import type { TurnState } from '../shared/durable-resume.js';
import type { ResumeRefusedError } from '../shared/errors.js';
/**
 * Why a client could not resume its session: a reason the server gave (`unknown`, `expired`, `ended`, `overflow`,
 * `invalid`), or one the client found itself: `unreachable` (no connection to the server within the resume
 * window), `auth` (the server refused the credentials on the reconnect), `unsupported` (the server no longer offers
 * resume), `overflow` (the client no longer holds messages the server missed).
 *
 * @example
 * ```ts
 * const reason: ResumeFailureReason = 'expired';
 * ```
 */
export type ResumeFailureReason =
  | 'unknown'
  | 'expired'
  | 'ended'
  | 'overflow'
  | 'invalid'
  | 'unreachable'
  | 'auth'
  | 'unsupported';

/**
 * What happened to a resumable client connection (`connectAcp`, `runMirror`), told through
 * `ConnectOptions.onConnectionEvent`:
 * - `interrupted`: the socket dropped uncleanly; the client reconnects within `windowMs`. Messages sent meanwhile
 *   wait and requests stay pending.
 * - `resumed`: a new socket carries the session on; `replayedFrames` messages were sent again.
 * - `resume-failed`: the transport resume is over (refused, not offered, or the server unreachable), with `error`, a
 *   `ResumeRefusedError` (code `RESUME_REFUSED`); the connection closes as it would have without resume (the mirror
 *   then answers its in-flight requests with an error and exits 1). Sessions may still be resumed on a new one.
 *
 * @example
 * ```ts
 * const remote = await connectAcp(url, {
 *   onConnectionEvent: (event) => console.error(`connection ${event.type}`),
 * });
 * ```
 */
export type ConnectionEvent =
  | {
      readonly type: 'interrupted';
      readonly code: number;
      readonly reason: string;
      /** The server's resume window. */
      readonly windowMs: number;
    }
  | {
      readonly type: 'resumed';
      /** Reconnect attempts it took. */
      readonly attempts: number;
      readonly downtimeMs: number;
      readonly replayedFrames: number;
    }
  | {
      readonly type: 'resume-failed';
      readonly reason: ResumeFailureReason;
      /** What happened, for a person. */
      readonly message: string;
      /**
       * The same as an error (code `RESUME_REFUSED`), for a program: the one seam through which every transport
       * resume that failed arrives, so the client can open a new connection and resume its sessions.
       */
      readonly error: ResumeRefusedError;
    }
  | {
      /**
       * The durable-resume draft's turn-state advisory, which a resumed Streamable HTTP session stream starts with:
       * `running` (the turn survived the cut), `idle` with `stopReason` (it ended meanwhile), `requires_action` (the
       * agent waits on the client: a permission request or question it sent while the client was away).
       */
      readonly type: 'turn-state';
      readonly sessionId: string;
      readonly turnState: TurnState;
    };
