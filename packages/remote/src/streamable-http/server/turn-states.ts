// The turn state of each session of a connection, read from route keys as messages pass: what the durable-resume
// draft's advisory (`acp/turnState`) tells a client that resumed a stream.
import type { TurnState } from '../../shared/durable-resume.js';
import type { RouteKeys } from '../../wire/route-keys.js';

/** Requests of the agent a session waits on that are tracked one by one; past it, only that some are waiting. */
const MAX_AWAITED = 256;

interface SessionTurn {
  /** The `session/prompt` in progress (its id key), if any. */
  prompt: string | undefined;
  /** Ids of the agent's requests to the client not yet answered (a permission request, an elicitation). */
  readonly awaited: Set<string>;
  /** More were awaited than tracked: the session waits on the client until its prompt ends. */
  overflowed: boolean;
  lastStopReason: string | undefined;
}

/**
 * Per session: the `session/prompt` in progress, the agent's requests the client has not answered, and how the last
 * turn ended. Bounded: one record per session the connection routes (bounded by its stream limits), at most
 * {@link MAX_AWAITED} ids each. Reads only route keys, except a prompt's answer, parsed for its `stopReason` (once
 * per turn).
 */
export class TurnStates {
  private readonly sessions = new Map<string, SessionTurn>();
  /** `session/prompt` ids in progress → their session. */
  private readonly prompts = new Map<string, string>();
  /** The session prompted last (an RFD WebSocket's advisory names it). */
  private latest: string | undefined;

  /** A message from the client. */
  inbound(keys: RouteKeys): void {
    if (keys.kind === 'request' && keys.method === 'session/prompt' && keys.sessionId && keys.id) {
      const turn = this.turnOf(keys.sessionId);
      turn.prompt = keys.id;
      this.prompts.set(keys.id, keys.sessionId);
      this.latest = keys.sessionId;
    } else if (keys.kind === 'response' && keys.id !== undefined) {
      for (const turn of this.sessions.values()) if (turn.awaited.delete(keys.id)) break;
    }
  }

  /** A message from the agent (`payload`: its JSON text). */
  outbound(keys: RouteKeys, payload: Buffer | string): void {
    if (keys.kind === 'response' && keys.id !== undefined) {
      const session = this.prompts.get(keys.id);
      if (session === undefined) return;
      this.prompts.delete(keys.id);
      const turn = this.turnOf(session);
      if (turn.prompt === keys.id) turn.prompt = undefined;
      turn.awaited.clear();
      turn.overflowed = false;
      turn.lastStopReason = stopReasonOf(payload);
    } else if (keys.kind === 'request' && keys.sessionId && keys.id !== undefined) {
      const turn = this.turnOf(keys.sessionId);
      if (turn.awaited.size < MAX_AWAITED) turn.awaited.add(keys.id);
      else turn.overflowed = true;
    }
  }

  /** The session's turn state now. */
  of(session: string): TurnState {
    const turn = this.sessions.get(session);
    if (turn === undefined) return { state: 'idle' };
    const promptRequestId =
      turn.prompt === undefined ? {} : { promptRequestId: JSON.parse(turn.prompt) as unknown };
    if (turn.awaited.size > 0 || turn.overflowed) return { state: 'requires_action', ...promptRequestId };
    if (turn.prompt !== undefined) return { state: 'running', ...promptRequestId };
    return turn.lastStopReason === undefined
      ? { state: 'idle' }
      : { state: 'idle', stopReason: turn.lastStopReason };
  }

  /** The session prompted last, if any. */
  get latestSession(): string | undefined {
    return this.latest;
  }

  /** Every session's turn state now, by session id. */
  all(): Record<string, TurnState> {
    // fromEntries defines each key as data, so a session id such as `__proto__` stays a key.
    return Object.fromEntries([...this.sessions.keys()].map((session) => [session, this.of(session)]));
  }

  private turnOf(session: string): SessionTurn {
    let turn = this.sessions.get(session);
    if (turn === undefined) {
      turn = { prompt: undefined, awaited: new Set(), overflowed: false, lastStopReason: undefined };
      this.sessions.set(session, turn);
    }
    return turn;
  }
}

/** `result.stopReason` of a prompt's answer, when it is a string. */
function stopReasonOf(payload: Buffer | string): string | undefined {
  try {
    const message = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as {
      result?: { stopReason?: unknown };
    };
    const reason = message.result?.stopReason;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}
