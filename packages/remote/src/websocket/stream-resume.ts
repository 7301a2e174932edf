// The durable-resume draft's `stream/resume` on the RFD WebSocket, as a server that keeps nothing for it answers it:
// `stream/resume_failed` (and an error answer to the request), then the socket waits for `initialize`.
import {
  DurableRefusalReason,
  STREAM_RESUME_FAILED_METHOD,
  STREAM_RESUME_METHOD,
} from '../shared/durable-resume.js';
import { errorResponseText } from '../wire/json-rpc.js';

/** The JSON-RPC error code of a refused `stream/resume` request (decided in docs/remote-transport.md). */
export const STREAM_RESUME_REFUSED_CODE = -32050;

/** What the server refuses a `stream/resume` with: the reason and, for a person, why. */
export const STREAM_RESUME_REFUSAL = {
  reason: DurableRefusalReason.Unsupported,
  message:
    'this server keeps nothing to resume an RFD WebSocket connection from (it advertises no transport.resumable ' +
    'there); send initialize on this socket and resume the sessions (session/resume or session/load), or use ' +
    'Streamable HTTP with Last-Event-ID',
} as const;

/**
 * The frames answering a first message that is `stream/resume` (request or notification), or undefined when the
 * message is something else. The refusal is the notification `stream/resume_failed` `{reason, message}`, then, for a
 * request, a JSON-RPC error answer (code {@link STREAM_RESUME_REFUSED_CODE}, the same `data`). Nothing of an old
 * connection is ever sent after it: the socket is a new connection, whose first message must be `initialize`.
 */
export function streamResumeRefusal(message: unknown): string[] | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (method !== STREAM_RESUME_METHOD) return undefined;
  const failed = JSON.stringify({
    jsonrpc: '2.0',
    method: STREAM_RESUME_FAILED_METHOD,
    params: STREAM_RESUME_REFUSAL,
  });
  const isId = typeof id === 'string' || typeof id === 'number';
  if (!isId) return [failed];
  const answer = errorResponseText(JSON.stringify(id), {
    code: STREAM_RESUME_REFUSED_CODE,
    message: 'stream resume refused',
    data: STREAM_RESUME_REFUSAL,
  });
  return [failed, answer];
}
