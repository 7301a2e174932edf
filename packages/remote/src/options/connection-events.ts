// What a resumable client connection tells through onConnectionEvent: ConnectionEvent and ResumeFailureReason.
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
 * - `resume-failed`: the session is over; the connection closes as it would have without resume (the mirror then
 *   answers its in-flight requests with an error and exits 1).
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
    };
