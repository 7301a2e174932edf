import { RequestError } from '@agentclientprotocol/sdk';
import type { RawData } from 'ws';
import { CloseCode, MESSAGE_TOO_LARGE_ERROR_CODE } from './constants.js';
import {
  classifyFrame,
  errorResponseText,
  type FrameKind,
  parseFrame,
  recoverRequestHead,
  toSingleLine,
} from './json-rpc.js';

/** What to do with one inbound WebSocket message or NDJSON line. */
export type InboundAction =
  | { type: 'forward'; text: string; message: Record<string, unknown>; frame: FrameKind }
  | { type: 'reply'; text: string; note: string }
  | { type: 'close'; code: number; reason: string };

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
): InboundAction {
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

/**
 * Checks one inbound WebSocket message: binary → close 1003; over the limit → error answer or 1009; not one JSON
 * object → JSON-RPC error answer with id null; otherwise forward the original text (raw newlines, which can only be
 * JSON whitespace, are replaced so the NDJSON framing holds).
 */
export function inspectWebSocketMessage(
  data: RawData,
  isBinary: boolean,
  maxMessageBytes: number,
): InboundAction {
  if (isBinary)
    return { type: 'close', code: CloseCode.UnsupportedData, reason: 'binary frames are not supported' };
  const buffer = rawDataToBuffer(data);
  if (buffer.length > maxMessageBytes) {
    return inspectOversize(buffer.subarray(0, 64 * 1024).toString('utf8'), maxMessageBytes, buffer.length);
  }
  return inspectText(buffer.toString('utf8'));
}

/** Checks one text message (already within the limit). */
export function inspectText(text: string): InboundAction {
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
