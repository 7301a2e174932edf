// JSON-RPC on the wire: the errors the relays write themselves, frame parsing, ids, and request-head recovery.
import { RelayErrorCode } from '../shared/constants.js';
import type { Transport } from '../shared/transport.js';

/** A JSON-RPC id as it appears on the wire. */
export type WireId = string | number | null;

/**
 * A JSON-RPC error as a relay writes it: code, message and optional data, in that order on the wire. The relays make
 * these themselves, with the codes and texts of the SDK's `RequestError` factories byte for byte (a test compares
 * them), instead of importing the SDK: its entrypoints evaluate its zod schemas, ~8 MB of old-generation heap each, in
 * processes that only relay bytes and whose garbage collector's work grows with that heap (bench/README.md,
 * "Analysis"). An SDK `RequestError` is one too.
 */
export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The JSON-RPC error codes the relays answer with (the SDK's `RequestError` uses the same). */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InternalError: -32603,
} as const;

const withDetail = (text: string, detail: string | undefined) => (detail ? `${text}: ${detail}` : text);

/**
 * Every error a relay answers with itself: the SDK `RequestError` factories it needs, as plain {@link WireError}s with
 * the same codes and messages, and the relays' own (an oversized request, a lost transport).
 *
 * @example
 * ```ts
 * errorResponseText('7', wireErrors.methodNotFound('fs/read_text_file'));
 * // {"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"\"Method not found\": fs/read_text_file",...}}
 * ```
 */
export const wireErrors = {
  parseError: (): WireError => ({ code: JsonRpcErrorCode.ParseError, message: 'Parse error' }),
  invalidRequest: (data?: unknown, detail?: string): WireError => ({
    code: JsonRpcErrorCode.InvalidRequest,
    message: withDetail('Invalid request', detail),
    data,
  }),
  methodNotFound: (method: string): WireError => ({
    code: JsonRpcErrorCode.MethodNotFound,
    message: `"Method not found": ${method}`,
    data: { method },
  }),
  internalError: (data?: unknown, detail?: string): WireError => ({
    code: JsonRpcErrorCode.InternalError,
    message: withDetail('Internal error', detail),
    data,
  }),
  /** The answer to an oversized request whose id could be recovered; `data` names the limit. */
  messageTooLarge: (maxMessageBytes: number, messageBytes: number | undefined): WireError => ({
    code: RelayErrorCode.MessageTooLarge,
    message: `Message exceeds the ${maxMessageBytes}-byte limit`,
    data: { maxMessageBytes, ...(messageBytes === undefined ? {} : { messageBytes }) },
  }),
  /**
   * The answer to a request past the bound on requests waiting for an answer (`maxPendingRequests`): the request
   * never reached its handler; the sender may send it again once answers came.
   */
  tooManyPendingRequests: (maxPendingRequests: number): WireError => ({
    code: RelayErrorCode.TooManyPendingRequests,
    message: `Too many requests waiting for an answer on this connection (maxPendingRequests ${maxPendingRequests}); send it again once earlier requests are answered`,
    data: { reason: 'too_many_pending_requests', maxPendingRequests },
  }),
  /**
   * `serveCommand`'s answer to `initialize` when its agent wrote text that is not JSON-RPC (`preview`: its start) and
   * did not answer within `graceMs`.
   */
  agentNotSpeakingAcp: (preview: string, graceMs: number): WireError => ({
    code: RelayErrorCode.AgentNotSpeakingAcp,
    message:
      `The remote agent is not speaking ACP: it wrote text that is not JSON-RPC to stdout (${JSON.stringify(preview)}) ` +
      `and did not answer initialize within ${graceMs / 1000} s. A stdio ACP agent must write only JSON-RPC to ` +
      "stdout and its logs to stderr; the server's log has more.",
    data: { reason: 'agent_not_speaking_acp', preview },
  }),
  /**
   * The answer the mirror gives its in-flight requests when the connection to the remote is gone (`transport`: which
   * one; close codes are the WebSocket's for both).
   */
  transportLost: (closeCode: number, reason: string, transport: Transport = 'websocket'): WireError => ({
    code: RelayErrorCode.TransportLost,
    message: `ACP remote transport lost: ${transport === 'websocket' ? 'the WebSocket connection closed' : 'the Streamable HTTP connection ended'} (code ${closeCode}${reason ? `: ${reason}` : ''})`,
    data: { transport, closeCode, reason },
  }),
  /**
   * The answer a client gives a request that was in flight when its server was lost, once the request's session was
   * carried to a new connection (`session/resume` or `session/load`): the session goes on, the request does not.
   */
  sessionCarried: (closeCode: number, reason: string, transport: Transport = 'websocket'): WireError => ({
    code: RelayErrorCode.TransportLost,
    message: `ACP remote server lost while this request was in flight (code ${closeCode}${reason ? `: ${reason}` : ''}); the session was carried to a new connection and continues: send the request again`,
    data: { reason: 'session_carried', transport, closeCode, closeReason: reason },
  }),
  /**
   * The answer a client gives a request that was on a socket when it dropped, once the durable-resume draft resumed
   * the connection without telling whether the request arrived (the draft has no client→server cursor): it is not
   * sent again (a `session/prompt` must not run twice) and an answer the server sends for it later is dropped.
   */
  cutInFlight: (closeCode: number): WireError => ({
    code: RelayErrorCode.TransportLost,
    message: `the WebSocket dropped (code ${closeCode}) while this request was on its way and the server never confirmed it arrived; the connection was resumed, the request was not sent again (it may or may not have run): check the session's state before sending it again`,
    data: { reason: 'cut_in_flight', transport: 'websocket', closeCode },
  }),
};

/** What a parsed JSON-RPC object is, by the SDK's own rules (`isRequestMessage`, `isNotificationMessage`, ...). */
export type MessageKind = 'request' | 'notification' | 'response' | 'invalid';

function isWireId(value: unknown): value is WireId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Classifies one parsed object as the SDK's connection does before handling it: a request (`jsonrpc` "2.0", a
 * string `method` and a valid `id`), a notification (no `id`), something response-shaped (no `method`, and an `id`,
 * `result` or `error`), or invalid (the SDK answers it with -32600 and id null).
 *
 * @example
 * ```ts
 * classifyMessage({ jsonrpc: '2.0', id: 1, method: 'initialize' }); // 'request'
 * ```
 */
export function classifyMessage(message: Record<string, unknown>): MessageKind {
  const envelope = message.jsonrpc === '2.0';
  if (envelope && typeof message.method === 'string') {
    if (!('id' in message)) return 'notification';
    if (isWireId(message.id)) return 'request';
    return 'invalid';
  }
  if (!('method' in message) && ('id' in message || 'result' in message || 'error' in message))
    return 'response';
  return 'invalid';
}

/** Result of checking that a frame or line is one JSON object. */
export type ParsedFrame =
  | { ok: true; message: Record<string, unknown> }
  | { ok: false; error: WireError; reason: 'parse' | 'not-object' | 'batch' };

/**
 * Parses a frame/line and checks that it is one JSON object (JSON-RPC batches are not used by ACP). The relays use
 * it only to name the error of a frame the scanner refused, and `serveAcp` to hand objects to the SDK.
 */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: wireErrors.parseError(), reason: 'parse' };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      error: wireErrors.invalidRequest(undefined, 'JSON-RPC batches are not supported'),
      reason: 'batch',
    };
  }
  if (typeof value !== 'object' || value === null) {
    return { ok: false, error: wireErrors.invalidRequest(value), reason: 'not-object' };
  }
  return { ok: true, message: value as Record<string, unknown> };
}

/**
 * Serialises a JSON-RPC error response. `idToken` is the id as JSON text, exactly as the request carried it
 * (`12345678901234567890` stays that, where a number round trip would change it), or `null`.
 */
export function errorResponseText(idToken: string, error: WireError): string {
  // The members in `RequestError.toErrorResponse()`'s order; `data` undefined is left out, as there.
  const body = JSON.stringify({ code: error.code, message: error.message, data: error.data });
  return `{"jsonrpc":"2.0","id":${idToken},"error":${body}}`;
}

/** Key under which an id is tracked in maps (distinguishes `1` from `"1"`; `1.0` and `1` are the same id). */
export function idKey(id: WireId): string {
  return JSON.stringify(id);
}

const HEAD_SCAN_BYTES = 64 * 1024;
const SCALAR_PATTERN = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|true|false)/;

/**
 * Recovers the top-level `id` (as its JSON token) and `method` of a (possibly truncated, oversized) JSON object by
 * scanning its head. Hand-written because it must work on a prefix: JSON parsers need the whole text. Only keys at
 * depth 1 count, so an `"id"` inside `params` is never mistaken for the request id.
 */
export function recoverRequestHead(head: string): {
  idToken: string | undefined;
  method: string | undefined;
} {
  const text = head.length > HEAD_SCAN_BYTES ? head.slice(0, HEAD_SCAN_BYTES) : head;
  let idToken: string | undefined;
  let method: string | undefined;
  let depth = 0;
  let index = 0;
  let expectKey = false;
  let currentKey: string | undefined;
  while (index < text.length && (idToken === undefined || method === undefined)) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) break;
      const token = text.slice(index, end + 1);
      let value: string;
      try {
        value = JSON.parse(token) as string;
      } catch {
        break;
      }
      index = end + 1;
      if (depth !== 1) continue;
      if (expectKey) {
        currentKey = value;
        expectKey = false;
      } else if (currentKey !== undefined) {
        if (currentKey === 'id') idToken = token;
        if (currentKey === 'method') method = value;
        currentKey = undefined;
      }
      continue;
    }
    if (char === '{' || char === '[') {
      if (depth === 1) currentKey = undefined;
      depth += 1;
      if (depth === 1) expectKey = char === '{';
      index += 1;
      continue;
    }
    if (char === '}' || char === ']') {
      depth -= 1;
      index += 1;
      continue;
    }
    if (depth === 1 && char === ',') {
      expectKey = true;
      currentKey = undefined;
      index += 1;
      continue;
    }
    if (depth === 1 && currentKey !== undefined && char !== ':' && !/\s/.test(char ?? '')) {
      const match = SCALAR_PATTERN.exec(text.slice(index, index + 64));
      if (!match) break;
      const token = match[0];
      if (currentKey === 'id' && (token === 'null' || /^-?\d/.test(token))) idToken = token;
      currentKey = undefined;
      index += token.length;
      continue;
    }
    index += 1;
  }
  return { idToken, method };
}
