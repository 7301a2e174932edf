import { RequestError } from '@agentclientprotocol/sdk';

/** A JSON-RPC id as it appears on the wire. */
export type WireId = string | number | null;

/** What a relay needs to know about one parsed frame. */
export type FrameKind =
  | { kind: 'request'; id: WireId; method: string }
  | { kind: 'notification'; method: string }
  | { kind: 'response'; id: WireId }
  | { kind: 'unknown' };

/** Result of checking that a frame or line is one JSON object. */
export type ParsedFrame =
  | { ok: true; message: Record<string, unknown> }
  | { ok: false; error: RequestError; reason: 'parse' | 'not-object' | 'batch' };

/**
 * Parses a frame/line and checks that it is one JSON object (JSON-RPC batches are not used by ACP).
 * The caller forwards the original text; the parsed value is only for policy decisions.
 */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: RequestError.parseError(), reason: 'parse' };
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      error: RequestError.invalidRequest(undefined, 'JSON-RPC batches are not supported'),
      reason: 'batch',
    };
  }
  if (typeof value !== 'object' || value === null) {
    return { ok: false, error: RequestError.invalidRequest(value), reason: 'not-object' };
  }
  return { ok: true, message: value as Record<string, unknown> };
}

function isWireId(value: unknown): value is WireId {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

/** Classifies a parsed JSON-RPC object. */
export function classifyFrame(message: Record<string, unknown>): FrameKind {
  const method = message.method;
  const hasId = Object.hasOwn(message, 'id');
  if (typeof method === 'string') {
    if (hasId && isWireId(message.id)) return { kind: 'request', id: message.id, method };
    if (!hasId) return { kind: 'notification', method };
    return { kind: 'unknown' };
  }
  if (
    hasId &&
    isWireId(message.id) &&
    (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error'))
  ) {
    return { kind: 'response', id: message.id };
  }
  return { kind: 'unknown' };
}

/** Serialises a JSON-RPC error response for `id`. */
export function errorResponseText(id: WireId, error: RequestError): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: error.toErrorResponse() });
}

/** Key under which an id is tracked in maps (distinguishes `1` from `"1"`). */
export function idKey(id: WireId): string {
  return JSON.stringify(id);
}

/** Raw `\n`/`\r` can only be insignificant whitespace in JSON text, so replacing them keeps the message intact. */
export function toSingleLine(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, ' ') : text;
}

const HEAD_SCAN_BYTES = 64 * 1024;
const SCALAR_PATTERN = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|true|false)/;

/**
 * Recovers the top-level `id` and `method` of a (possibly truncated, oversized) JSON object by scanning its head.
 * Hand-written because it must work on a prefix: JSON parsers need the whole text.
 * Only keys at depth 1 count, so an `"id"` inside `params` is never mistaken for the request id.
 */
export function recoverRequestHead(head: string): { id: WireId | undefined; method: string | undefined } {
  const text = head.length > HEAD_SCAN_BYTES ? head.slice(0, HEAD_SCAN_BYTES) : head;
  let id: WireId | undefined;
  let method: string | undefined;
  let depth = 0;
  let index = 0;
  let expectKey = false;
  let currentKey: string | undefined;
  while (index < text.length && (id === undefined || method === undefined)) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) break;
      let value: string;
      try {
        value = JSON.parse(text.slice(index, end + 1)) as string;
      } catch {
        break;
      }
      index = end + 1;
      if (depth !== 1) continue;
      if (expectKey) {
        currentKey = value;
        expectKey = false;
      } else if (currentKey !== undefined) {
        if (currentKey === 'id') id = value;
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
      if (currentKey === 'id') {
        if (token === 'null') id = null;
        else if (/^-?\d/.test(token)) id = Number(token);
      }
      currentKey = undefined;
      index += token.length;
      continue;
    }
    index += 1;
  }
  return { id, method };
}
