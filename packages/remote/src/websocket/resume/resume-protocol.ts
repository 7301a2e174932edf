// The wire of resumable connections (`acpkit.resume.v1`), shared by the servers and the clients. The layout is
// documented for other implementations in docs/remote-transport.md ("Resume"); change both together.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { singleHeader } from '../../shared/http-headers.js';

/**
 * The WebSocket subprotocol of resumable connections: a client offers it, a server with resume on selects it.
 * Without it, the plain wire (one JSON-RPC message per text frame) is unchanged. See docs/remote-transport.md.
 *
 * @example
 * ```ts
 * const resumable = socket.protocol === RESUME_SUBPROTOCOL;
 * ```
 */
export const RESUME_SUBPROTOCOL = 'acpkit.resume.v1';
/** Request header of a resume: the session's resume token (from `welcome`). */
export const RESUME_TOKEN_HEADER = 'acpkit-resume-token';
/** Request header of a resume: how many data frames the client has received on the session. */
export const RESUME_RECEIVED_HEADER = 'acpkit-resume-received';
/** Response header of a refused resume (HTTP 410 or 400): the reason, one of {@link ResumeRefusalReason}. */
export const RESUME_REFUSED_HEADER = 'acpkit-resume-refused';

/** A peer acknowledges at the latest after this many data frames... */
export const ACK_EVERY_FRAMES = 64;
/** ...or this many bytes of them... */
export const ACK_EVERY_BYTES = 1024 * 1024;
/** ...or this long after the first frame it has not acknowledged yet. */
export const ACK_DELAY_MS = 100;
/** Control frames are small; a larger binary frame is a protocol violation. */
export const MAX_CONTROL_FRAME_BYTES = 4096;

/**
 * Why a server refuses a resume (the `Acpkit-Resume-Refused` header of its 410 answer, and the reason a client
 * reports). `unknown`: no session with this token for this peer (the server restarted, never issued it, or the
 * bearer token differs). `expired`: the resume window passed. `ended`: the session ended (its agent exited, it was
 * closed, the server is draining). `overflow`: the replay buffer no longer holds frames the client has not
 * received. `invalid`: malformed resume headers (400).
 */
export const ResumeRefusalReason = {
  Unknown: 'unknown',
  Expired: 'expired',
  Ended: 'ended',
  Overflow: 'overflow',
  Invalid: 'invalid',
} as const;
/** Union of the values of {@link ResumeRefusalReason}. */
export type ResumeRefusalReason = (typeof ResumeRefusalReason)[keyof typeof ResumeRefusalReason];

const REFUSAL_REASONS: ReadonlySet<string> = new Set(Object.values(ResumeRefusalReason));

/** Whether `value` names a {@link ResumeRefusalReason}. */
export function isResumeRefusalReason(value: unknown): value is ResumeRefusalReason {
  return typeof value === 'string' && REFUSAL_REASONS.has(value);
}

/** What a server says about a refused resume, per reason (the body of its answer; clients log it). */
export const REFUSAL_EXPLANATIONS: Readonly<Record<ResumeRefusalReason, string>> = {
  unknown: 'no session with this resume token (the server restarted, or the session was forgotten)',
  expired: 'the resume window passed before the client came back',
  ended: 'the session ended while the client was away',
  overflow: 'the replay buffer no longer holds messages the client has not received',
  invalid: 'the resume headers are malformed',
};

/** Control frames (binary frames carrying one small JSON object). */
export type ControlFrame =
  | {
      /** Server → client, first frame of every connection that selected the subprotocol. */
      readonly type: 'welcome';
      readonly token: string;
      /** Whether this connection resumed an existing session (false: a new session). */
      readonly resumed: boolean;
      /** Data frames the server has received from the client on the session. */
      readonly received: number;
      /** How long the server keeps a dropped session for a resume. */
      readonly windowMs: number;
      /** The server's replay buffer bound. */
      readonly bufferBytes: number;
    }
  | {
      /** Either direction: data frames received so far on the session (cumulative). */
      readonly type: 'ack';
      readonly received: number;
    };

/** Encodes a control frame. */
export function encodeControlFrame(frame: ControlFrame): Buffer {
  return Buffer.from(JSON.stringify(frame));
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Parses a control frame. Unknown `type`s parse as `undefined` with no error (later versions may add some); a
 * known type with bad fields, or bytes that are not one JSON object, is an error (a protocol violation).
 */
export function parseControlFrame(
  bytes: Buffer,
): { ok: true; frame: ControlFrame | undefined } | { ok: false; error: string } {
  if (bytes.length > MAX_CONTROL_FRAME_BYTES) {
    return { ok: false, error: `control frame over ${MAX_CONTROL_FRAME_BYTES} bytes` };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, error: 'control frame is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'control frame is not a JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (record.type === 'ack') {
    if (!isCount(record.received)) return { ok: false, error: 'ack without a valid received count' };
    return { ok: true, frame: { type: 'ack', received: record.received } };
  }
  if (record.type === 'welcome') {
    const { token, resumed, received, windowMs, bufferBytes } = record;
    if (
      !isResumeToken(token) ||
      typeof resumed !== 'boolean' ||
      !isCount(received) ||
      !isCount(windowMs) ||
      !isCount(bufferBytes)
    ) {
      return { ok: false, error: 'welcome with missing or invalid fields' };
    }
    return { ok: true, frame: { type: 'welcome', token, resumed, received, windowMs, bufferBytes } };
  }
  if (typeof record.type !== 'string') return { ok: false, error: 'control frame without a type' };
  return { ok: true, frame: undefined };
}

// An optional `<instanceId>.` (the instance id's own rule: 1 to 32 of A-Z, a-z, 0-9, _ and -), then 256 bits.
const TOKEN_PATTERN = /^(?:[A-Za-z0-9_-]{1,32}\.)?[A-Za-z0-9_-]{43}$/;

/**
 * A new resume token: 256 random bits, base64url without padding (43 characters), after `<instanceId>.` when the
 * server has an instance id, so a proxy in front of several instances routes the resume (its `Acpkit-Resume-Token`
 * header) to the instance that holds the session, as it routes `Acp-Connection-Id`.
 *
 * @example
 * ```ts
 * newResumeToken('a'); // 'a.k_68JtUCi0VAHE_iqEFDkrAPNWttWYE5CzO-T…'
 * ```
 */
export function newResumeToken(instanceId?: string): string {
  const secret = randomBytes(32).toString('base64url');
  return instanceId === undefined ? secret : `${instanceId}.${secret}`;
}

/** Whether `value` has the shape of a resume token. */
export function isResumeToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/** The key a server files a session under: a digest, so the map never holds a usable token. */
export function resumeTokenKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** A client's resume request, read from the upgrade's headers. */
export type ResumeRequest =
  | { kind: 'none' }
  | { kind: 'resume'; token: string; received: number }
  | { kind: 'invalid'; problem: string };

/**
 * Reads the resume headers of an upgrade request. Both or neither must be present, each once; the count is a
 * decimal integer. Whether the subprotocol was offered is checked by the caller.
 */
export function readResumeRequest(headers: IncomingHttpHeaders): ResumeRequest {
  const token = singleHeader(headers, RESUME_TOKEN_HEADER);
  const received = singleHeader(headers, RESUME_RECEIVED_HEADER);
  if (token === undefined && received === undefined) return { kind: 'none' };
  if (token === null || received === null) return { kind: 'invalid', problem: 'a resume header is repeated' };
  if (token === undefined || received === undefined) {
    return { kind: 'invalid', problem: 'a resume needs both the token and the received count' };
  }
  if (!isResumeToken(token.trim())) return { kind: 'invalid', problem: 'the resume token is malformed' };
  const count = received.trim();
  if (!/^\d{1,15}$/.test(count)) return { kind: 'invalid', problem: 'the received count is malformed' };
  return { kind: 'resume', token: token.trim(), received: Number(count) };
}

/** The headers a client sends to resume a session. */
export function resumeRequestHeaders(token: string, received: number): Record<string, string> {
  return { [RESUME_TOKEN_HEADER]: token, [RESUME_RECEIVED_HEADER]: String(received) };
}
