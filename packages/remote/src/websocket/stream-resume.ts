// The durable-resume draft's `stream/resume` on the RFD WebSocket: the request a socket's first frame may be (its
// params read), the answer to one the server honours, and the refusal (`stream/resume_failed`) to one it cannot.
import {
  DurableRefusalReason,
  STREAM_RESUME_FAILED_METHOD,
  STREAM_RESUME_METHOD,
  TURN_STATE_META_KEY,
  type TurnState,
} from '../shared/durable-resume.js';
import { MAX_ID_LENGTH } from '../streamable-http/protocol.js';
import { errorResponseText } from '../wire/json-rpc.js';

/** The JSON-RPC error code of a refused `stream/resume` request (decided in docs/remote-transport.md). */
export const STREAM_RESUME_REFUSED_CODE = -32050;

/**
 * The `_meta` key of the answer to `stream/resume` that holds every session's turn state by session id (ours: one
 * RFD WebSocket carries all of its connection's sessions, the draft's advisory names one).
 */
export const TURN_STATES_META_KEY = 'acp/turnStates';

/** Why a `stream/resume` was refused, and what a person should do about it. */
export interface StreamResumeRefusal {
  readonly reason: DurableRefusalReason;
  readonly message: string;
}

/** What a server that keeps nothing for an RFD WebSocket resume (no resume window) refuses a `stream/resume` with. */
export const STREAM_RESUME_REFUSAL: StreamResumeRefusal = {
  reason: DurableRefusalReason.Unsupported,
  message:
    'this server keeps nothing to resume an RFD WebSocket connection from (it advertises no transport.resumable ' +
    'there); send initialize on this socket and resume the sessions (session/resume or session/load), or use ' +
    'Streamable HTTP with Last-Event-ID',
};

/** What a `stream/resume` repeated on a socket whose first one was refused is refused with. */
export const STREAM_RESUME_REPEATED: StreamResumeRefusal = {
  reason: DurableRefusalReason.Invalid,
  message:
    'stream/resume is only read as the first message of a socket: this one is a new connection, send initialize',
};

/**
 * A `stream/resume` as a socket's first frame: `{connectionId, cursor}` (decided in docs/remote-transport.md; the
 * draft's "one cursor per stream" may also be spelled `cursors: {connection}`). `cursor` undefined: the client
 * processed nothing of the connection yet (everything kept is sent). `id`: the request's id as written (its JSON
 * token); undefined for a notification, which gets no answer.
 */
export type StreamResumeRequest =
  | {
      readonly ok: true;
      readonly id: string | undefined;
      readonly connectionId: string;
      readonly cursor: string | undefined;
    }
  | { readonly ok: false; readonly id: string | undefined; readonly message: string };

/** Whether `frame` may be a `stream/resume` (a byte search, so no other first frame is parsed twice). */
export function mayBeStreamResume(frame: Buffer): boolean {
  return frame.includes(STREAM_RESUME_METHOD);
}

/** The id of a request as written (its JSON token), when it has one a JSON-RPC answer can carry. */
function idToken(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}

/**
 * Reads a socket's first frame as a `stream/resume`: undefined when it is something else (not JSON, another method),
 * else the request or why its params are malformed (`invalid`).
 *
 * @example
 * ```ts
 * readStreamResume(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"stream/resume","params":{"connectionId":"c","cursor":"7"}}'));
 * // { ok: true, id: '1', connectionId: 'c', cursor: '7' }
 * ```
 */
export function readStreamResume(frame: Buffer): StreamResumeRequest | undefined {
  let message: unknown;
  try {
    message = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object') return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== STREAM_RESUME_METHOD) return undefined;
  const token = idToken(id);
  const invalid = (why: string): StreamResumeRequest => ({ ok: false, id: token, message: why });
  if (params === null || typeof params !== 'object' || Array.isArray(params))
    return invalid('params must be an object: {"connectionId": "...", "cursor": "..."}');
  const { connectionId, cursor, cursors } = params as Record<string, unknown>;
  if (typeof connectionId !== 'string' || connectionId.length === 0 || connectionId.length > MAX_ID_LENGTH)
    return invalid('params.connectionId must be the Acp-Connection-Id of the connection to resume');
  const spelled = cursorOfMap(cursors);
  if (spelled === null) return invalid('params.cursors must be {"connection": "<cursor>"}');
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
    return invalid('params.cursor must be the last cursor processed (a string), or absent');
  const given = typeof cursor === 'string' ? cursor : undefined;
  if (given !== undefined && spelled !== undefined && given !== spelled)
    return invalid('params.cursor and params.cursors.connection name different cursors');
  return { ok: true, id: token, connectionId, cursor: given ?? spelled };
}

/** `cursors.connection` (undefined when `cursors` is absent or names none; null when it is malformed). */
function cursorOfMap(cursors: unknown): string | undefined | null {
  if (cursors === undefined || cursors === null) return undefined;
  if (typeof cursors !== 'object' || Array.isArray(cursors)) return null;
  const value = (cursors as Record<string, unknown>).connection;
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * The frames refusing a `stream/resume` whose id token is `id` (undefined: a notification): the notification
 * `stream/resume_failed` `{reason, message}`, then, for a request, a JSON-RPC error answer (code
 * {@link STREAM_RESUME_REFUSED_CODE}, the same `data`). Nothing of an old connection is sent after them: the socket is
 * a new connection, whose first message must be `initialize`.
 */
export function streamResumeRefusalFrames(id: string | undefined, refusal: StreamResumeRefusal): string[] {
  const params = { reason: refusal.reason, message: refusal.message };
  const failed = JSON.stringify({ jsonrpc: '2.0', method: STREAM_RESUME_FAILED_METHOD, params });
  if (id === undefined) return [failed];
  const answer = errorResponseText(id, {
    code: STREAM_RESUME_REFUSED_CODE,
    message: 'stream resume refused',
    data: params,
  });
  return [failed, answer];
}

/**
 * The frames answering a first message that is `stream/resume` (request or notification) on a port that refuses it
 * (`refusal`, by default {@link STREAM_RESUME_REFUSAL}), or undefined when the message is something else.
 */
export function streamResumeRefusal(
  message: unknown,
  refusal: StreamResumeRefusal = STREAM_RESUME_REFUSAL,
): string[] | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (method !== STREAM_RESUME_METHOD) return undefined;
  return streamResumeRefusalFrames(idToken(id), refusal);
}

/**
 * The answer to an honoured `stream/resume` request (id token `id`): a result whose `_meta` holds the draft's v1
 * advisory, `acp/turnState` (the turn of the session prompted last, with its `sessionId`; `idle` without one when
 * the connection has no session), and every session's turn by id under {@link TURN_STATES_META_KEY}. It carries no
 * cursor: it is not part of the connection's stream (the replay that follows is).
 */
export function streamResumeAnswer(
  id: string,
  latest: (TurnState & { readonly sessionId?: string }) | undefined,
  sessions: Readonly<Record<string, TurnState>>,
): string {
  const meta = { [TURN_STATE_META_KEY]: latest ?? { state: 'idle' }, [TURN_STATES_META_KEY]: sessions };
  return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify({ _meta: meta })}}`;
}
