// What a resumable client connection tells through onConnectionEvent: ConnectionEvent and ResumeFailureReason.
import type { ResumeFailureReason, TurnState } from '../shared/durable-resume.js';
import type { ResumeRefusedError } from '../shared/errors.js';

export type { ResumeFailureReason } from '../shared/durable-resume.js';

/**
 * What happened to a resumable client connection (`connectAcp`, `runMirror`), told through
 * `ConnectOptions.onConnectionEvent`:
 * - `interrupted`: the socket dropped uncleanly; the client reconnects within `windowMs`. Messages sent meanwhile
 *   wait and requests stay pending.
 * - `resumed`: a new socket carries the session on; `replayedFrames` messages were sent again.
 * - `resume-failed`: the transport resume is over (refused, not offered, or the server unreachable), with `error`, a
 *   `ResumeRefusedError` (code `RESUME_REFUSED`); the connection closes as it would have without resume (the mirror
 *   then answers its in-flight requests with an error and exits 1), unless the editor's sessions are carried:
 * - `server-lost`, then `sessions-carried` or `carry-failed`: with `carrySessions` (the default) a connection lost for
 *   good while the editor has sessions open is replaced by a new one, on which every session is resumed or loaded.
 * - `turn-state`: the durable-resume draft's advisory at the start of a resumed Streamable HTTP session stream.
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
      /** The connection is lost for good (no resume): the client carries the editor's open sessions to a new one. */
      readonly type: 'server-lost';
      readonly code: number;
      readonly reason: string;
      /** Sessions the editor has open. */
      readonly sessions: number;
    }
  | {
      /**
       * A new connection carries the sessions on (`session/resume`, or `session/load` without its replay); requests
       * in flight at the cut were answered with an error (`data.reason` `"session_carried"`).
       */
      readonly type: 'sessions-carried';
      readonly carried: readonly string[];
      /** Sessions the new server would not open, and why. */
      readonly lost: readonly { readonly sessionId: string; readonly message: string }[];
      readonly attempts: number;
      readonly downtimeMs: number;
    }
  | {
      /** No session could be carried (the server stayed away past `reconnectTimeoutMs`, or opened none): the end. */
      readonly type: 'carry-failed';
      readonly message: string;
      readonly attempts: number;
      readonly downtimeMs: number;
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
