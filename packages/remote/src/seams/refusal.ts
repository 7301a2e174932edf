// A refused request or connection as the server answers it: its status, its reason (one of REFUSAL_REASONS) and its
// body; what the transports' server sides refuse with and the server's front door answers.
import type { RefusalReason } from './refusal-reasons.js';

export type { RefusalReason } from './refusal-reasons.js';

/** A refused request: the HTTP answer and its reason. */
export interface Refusal {
  readonly ok: false;
  readonly status: number;
  readonly reason: RefusalReason;
  readonly body: string;
  /** `text/plain; charset=utf-8` unless said otherwise (a JSON-RPC error body is `application/json`). */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

/** Outcome of checking one HTTP request (plain route or upgrade). */
export type RequestDecision = { ok: true } | Refusal;

/** A refusal with a one-line `text/plain` body (`body` ends with its newline). */
export function refuse(
  status: number,
  reason: RefusalReason,
  body: string,
  headers?: Record<string, string>,
): Refusal {
  return { ok: false, status, reason, body, ...(headers ? { headers } : {}) };
}
