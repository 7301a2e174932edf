import { isUtf8 } from 'node:buffer';
import { RequestError } from '@agentclientprotocol/sdk';
import type { RawData } from 'ws';
import { CloseCode, MESSAGE_TOO_LARGE_ERROR_CODE } from './constants.js';
import { scanFrame } from './frame-scan.js';
import {
  classifyFrame,
  errorResponseText,
  type FrameKind,
  parseFrame,
  recoverRequestHead,
  toSingleLine,
} from './json-rpc.js';

/** An inbound message that is refused: answered with a JSON-RPC error, or the connection closes. */
export type RefusalAction =
  | { type: 'reply'; text: string; note: string }
  | { type: 'close'; code: number; reason: string };

/** What to do with one parsed inbound message (the SDK stream needs the object anyway). */
export type ParsedInboundAction =
  | { type: 'forward'; text: string; message: Record<string, unknown>; frame: FrameKind }
  | RefusalAction;

/** A message to relay as bytes: the original frame, or a copy with raw newlines replaced. */
export interface ForwardAction {
  type: 'forward';
  payload: Buffer;
  frame: FrameKind;
  /** Parses the message on demand: only the policies that rewrite a message need the object. */
  message(): Record<string, unknown>;
}

/** What a relay does with one inbound WebSocket message or NDJSON line. */
export type InboundAction = ForwardAction | RefusalAction;

/** Converts `ws` raw data (Buffer, Buffer[] or ArrayBuffer) to one Buffer. */
export function rawDataToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Builds the JSON-RPC error answer for an oversized request. */
export function oversizeError(maxMessageBytes: number, messageBytes: number | undefined): RequestError {
  return new RequestError(MESSAGE_TOO_LARGE_ERROR_CODE, `Message exceeds the ${maxMessageBytes}-byte limit`, {
    maxMessageBytes,
    ...(messageBytes === undefined ? {} : { messageBytes }),
  });
}

/**
 * Decides what happens to an oversized message: a request whose id can be recovered from its head is answered
 * with a JSON-RPC error (the connection stays usable); anything else closes with 1009.
 */
export function inspectOversize(
  head: string,
  maxMessageBytes: number,
  messageBytes: number | undefined,
): RefusalAction {
  const recovered = recoverRequestHead(head);
  if (recovered.id !== undefined && recovered.method !== undefined) {
    return {
      type: 'reply',
      text: errorResponseText(recovered.id, oversizeError(maxMessageBytes, messageBytes)),
      note: 'oversized request answered with an error',
    };
  }
  return {
    type: 'close',
    code: CloseCode.MessageTooBig,
    reason: `message exceeds the ${maxMessageBytes}-byte limit`,
  };
}

/** Binary and size checks every inbound WebSocket message gets first; returns its bytes when it may go on. */
function checkWebSocketMessage(
  data: RawData,
  isBinary: boolean,
  maxMessageBytes: number,
): Buffer | RefusalAction {
  if (isBinary)
    return { type: 'close', code: CloseCode.UnsupportedData, reason: 'binary frames are not supported' };
  const buffer = rawDataToBuffer(data);
  if (buffer.length > maxMessageBytes) {
    return inspectOversize(buffer.subarray(0, 64 * 1024).toString('utf8'), maxMessageBytes, buffer.length);
  }
  return buffer;
}

/**
 * Checks one inbound WebSocket message: binary → close 1003; over the limit → error answer or 1009; not one JSON
 * object → JSON-RPC error answer with id null; otherwise forward the original bytes (raw newlines, which can only
 * be JSON whitespace, are replaced so the NDJSON framing holds). `ws` has already checked that a text frame is
 * valid UTF-8 (1007 otherwise), so the bytes are not checked again.
 */
export function inspectWebSocketMessage(
  data: RawData,
  isBinary: boolean,
  maxMessageBytes: number,
): InboundAction {
  const checked = checkWebSocketMessage(data, isBinary, maxMessageBytes);
  return Buffer.isBuffer(checked) ? inspectBytes(checked, true) : checked;
}

/** Like {@link inspectWebSocketMessage}, for consumers that need the parsed object of every message. */
export function parseWebSocketMessage(
  data: RawData,
  isBinary: boolean,
  maxMessageBytes: number,
): ParsedInboundAction {
  const checked = checkWebSocketMessage(data, isBinary, maxMessageBytes);
  return Buffer.isBuffer(checked) ? inspectText(checked.toString('utf8')) : checked;
}

/**
 * Checks one message given as bytes (already within the limit). The fast path classifies the bytes without
 * decoding or parsing them and forwards them unchanged; anything it cannot vouch for (invalid UTF-8, invalid JSON,
 * raw newlines, ...) takes the slow path through `JSON.parse`, which gives the exact error or the rewrite.
 *
 * @param knownUtf8 - The bytes were already validated as UTF-8 (a WebSocket text frame).
 */
export function inspectBytes(bytes: Buffer, knownUtf8: boolean): InboundAction {
  const frame = knownUtf8 || isUtf8(bytes) ? scanFrame(bytes) : undefined;
  if (frame) {
    return {
      type: 'forward',
      payload: bytes,
      frame,
      message: () => JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
    };
  }
  const action = inspectText(bytes.toString('utf8'));
  if (action.type !== 'forward') return action;
  return {
    type: 'forward',
    payload: Buffer.from(action.text, 'utf8'),
    frame: action.frame,
    message: () => action.message,
  };
}

/** Checks one text message (already within the limit). */
export function inspectText(text: string): ParsedInboundAction {
  const parsed = parseFrame(text);
  if (!parsed.ok) {
    return {
      type: 'reply',
      text: errorResponseText(null, parsed.error),
      note: `invalid message (${parsed.reason})`,
    };
  }
  return {
    type: 'forward',
    text: toSingleLine(text),
    message: parsed.message,
    frame: classifyFrame(parsed.message),
  };
}

/** Truncates a WebSocket close reason to the protocol's 123-byte limit. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = reason.slice(0, 120);
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}...`;
}
