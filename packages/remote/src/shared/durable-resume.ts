// The names and small rules of ACP's durable-resume draft ("durable resumable HTTP transport") as ACP Kit speaks
// it: where retention is advertised, the turn-state advisory, the refusal reasons. Decisions: docs/remote-transport.md.

/**
 * The `_meta` key of `initialize`'s `agentCapabilities` under which a v1 server advertises the draft's transport
 * capabilities: `agentCapabilities._meta["acp/transport"].resumable` (the draft's v2 shape is
 * `capabilities.transport.resumable`; v1 has `agentCapabilities` and puts extensions in `_meta`). Clients also read
 * the v2 spelling and `agentCapabilities.transport.resumable`.
 */
export const TRANSPORT_META_KEY = 'acp/transport';
/** The `_meta` key of the v1 turn-state advisory sent after a successful resume. */
export const TURN_STATE_META_KEY = 'acp/turnState';
/** The SSE event name of the turn-state advisory on a resumed Streamable HTTP stream (an event without `id:`). */
export const TURN_STATE_EVENT = 'acp/turnState';
/** The WebSocket resume request (the client's first frame after the upgrade) and the server's refusal notification. */
export const STREAM_RESUME_METHOD = 'stream/resume';
export const STREAM_RESUME_FAILED_METHOD = 'stream/resume_failed';
/**
 * Response header of a refused `Last-Event-ID` (409): one of {@link DurableRefusalReason}. The same header as an
 * `acpkit.resume.v1` refusal's (lower case, as Node hands headers over).
 */
export const RESUME_REFUSED_HTTP_HEADER = 'acpkit-resume-refused';

/** What a server advertises in `initialize` when it keeps sent messages for a resume (the draft's `resumable`). */
export interface ResumableRetention {
  /** A floor: at least this many of the latest messages of a stream are kept (messages of the maximum size). */
  readonly retentionMessages: number;
  /** A floor: messages are kept at least this long after they were sent (whole seconds, rounded down). */
  readonly retentionSeconds: number;
  /** ACP Kit's own: the byte bound of what is kept per connection, per-message overhead included. */
  readonly retentionBytes?: number;
  /** ACP Kit's own: the keepalive interval (SSE comments, WebSocket pings); 5 silent intervals mean a dead stream. */
  readonly keepaliveIntervalMs?: number;
}

/**
 * Why a server refused a stream resume (`stream/resume_failed`'s `reason`, the `Acpkit-Resume-Refused` header of a
 * 409): `unknown` (a cursor or connection this server never issued or no longer knows: a restart, another
 * instance), `expired` (past retention: the messages after the cursor are no longer kept), `ended` (the connection
 * ended: DELETE, its agent exited), `unsupported` (this server keeps nothing for a resume on this transport),
 * `invalid` (a malformed resume request).
 */
export const DurableRefusalReason = {
  Unknown: 'unknown',
  Expired: 'expired',
  Ended: 'ended',
  Unsupported: 'unsupported',
  Invalid: 'invalid',
} as const;
/** Union of the values of {@link DurableRefusalReason}. */
export type DurableRefusalReason = (typeof DurableRefusalReason)[keyof typeof DurableRefusalReason];

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

/** The client-side failure reason of a server's refusal reason (`overflow`, the older name, reads as `expired`). */
export function failureReasonOf(reason: string | undefined): ResumeFailureReason {
  if (reason === 'overflow' || reason === 'expired') return 'expired';
  if (reason === 'ended' || reason === 'unsupported' || reason === 'invalid') return reason;
  return 'unknown';
}

/**
 * Adds `agentCapabilities._meta["acp/transport"].resumable` to an `initialize` answer (the JSON text the agent
 * wrote). Parsed and written again: once per connection, not per message. An answer that is not a result object is
 * returned as it is.
 */
export function advertiseRetention(answer: Buffer | string, retention: ResumableRetention): Buffer | string {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(typeof answer === 'string' ? answer : answer.toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    return answer;
  }
  const result = message.result;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return answer;
  const record = result as Record<string, unknown>;
  const capabilities = objectAt(record, 'agentCapabilities');
  const meta = objectAt(capabilities, '_meta');
  meta[TRANSPORT_META_KEY] = { ...objectAt(meta, TRANSPORT_META_KEY), resumable: retention };
  return JSON.stringify(message);
}

/** `record[key]` as an object, made (or replaced, when it is not one) in place. */
function objectAt(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = record[key];
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return value as Record<string, unknown>;
  const made: Record<string, unknown> = {};
  record[key] = made;
  return made;
}

/** Reads what `initialize`'s result advertises (the v1 placement, or the draft's v2 spellings); undefined: nothing. */
export function readAdvertisedRetention(result: unknown): ResumableRetention | undefined {
  const at = (value: unknown, key: string): unknown =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  const candidates = [
    at(at(at(at(result, 'agentCapabilities'), '_meta'), TRANSPORT_META_KEY), 'resumable'),
    at(at(at(result, 'agentCapabilities'), 'transport'), 'resumable'),
    at(at(at(result, 'capabilities'), 'transport'), 'resumable'),
  ];
  for (const candidate of candidates) {
    const messages = at(candidate, 'retentionMessages');
    const seconds = at(candidate, 'retentionSeconds');
    if (typeof messages !== 'number' || typeof seconds !== 'number') continue;
    const bytes = at(candidate, 'retentionBytes');
    const keepalive = at(candidate, 'keepaliveIntervalMs');
    return {
      retentionMessages: messages,
      retentionSeconds: seconds,
      ...(typeof bytes === 'number' ? { retentionBytes: bytes } : {}),
      ...(typeof keepalive === 'number' && keepalive > 0 ? { keepaliveIntervalMs: keepalive } : {}),
    };
  }
  return undefined;
}

/**
 * What a server keeping messages for a resume can promise (the draft's `resumable`), or undefined when it keeps
 * nothing (`resumeWindowMs` 0). It keeps `resumeBufferBytes` plus one message per connection (overhead
 * `overheadBytes` per message counted) for `resumeWindowMs`: how the limits combine is ours to say (a message stays
 * while both hold), so the message floor is for messages of the maximum size (at least one).
 *
 * @example
 * ```ts
 * retentionOf({ resumeWindowMs: 60_000, resumeBufferBytes: 16 << 20, maxMessageBytes: 16 << 20, pingIntervalMs: 25_000 }, 256);
 * // { retentionMessages: 1, retentionSeconds: 60, retentionBytes: 33554432, keepaliveIntervalMs: 25000 }
 * ```
 */
export function retentionOf(
  options: {
    readonly resumeWindowMs: number;
    readonly resumeBufferBytes: number;
    readonly maxMessageBytes: number;
    readonly pingIntervalMs: number;
  },
  overheadBytes: number,
): ResumableRetention | undefined {
  if (options.resumeWindowMs <= 0) return undefined;
  const maxBytes = options.resumeBufferBytes + options.maxMessageBytes;
  return {
    retentionMessages: Math.max(1, Math.floor(maxBytes / (options.maxMessageBytes + overheadBytes))),
    retentionSeconds: Math.floor(options.resumeWindowMs / 1000),
    retentionBytes: maxBytes,
    keepaliveIntervalMs: options.pingIntervalMs,
  };
}

/** The turn state of one session, as the advisory tells it. */
export type TurnState =
  | { readonly state: 'running'; readonly promptRequestId?: unknown }
  | { readonly state: 'requires_action'; readonly promptRequestId?: unknown }
  | { readonly state: 'idle'; readonly stopReason?: string };
