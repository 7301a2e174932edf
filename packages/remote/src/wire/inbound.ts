// The checks of every inbound frame (UTF-8, one JSON object, line breaks, oversize answers) and their refusals.
import { isUtf8 } from 'node:buffer';
import type { RawData } from 'ws';
import { CloseCode } from '../shared/constants.js';
import { FrameScanner, type WatchNode } from './frame-scan.js';
import { errorResponseText, recoverRequestHead, type WireError, wireErrors } from './json-rpc.js';

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const EMPTY_FRAME = Buffer.alloc(0);
/** How much of an oversized message is read to recover its id. */
export const OVERSIZE_HEAD_BYTES = 64 * 1024;

/** An inbound message that is refused: answered with a JSON-RPC error, or the connection closes. */
export type RefusalAction =
  | { type: 'reply'; text: string; note: string }
  | { type: 'close'; code: number; reason: string };

/** Converts `ws` raw data (Buffer, Buffer[] or ArrayBuffer) to one Buffer. */
export function rawDataToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/**
 * Decides what happens to an oversized message: a request whose id can be recovered from its head is answered
 * with a JSON-RPC error carrying that id exactly as sent (the connection stays usable); anything else closes with
 * 1009.
 */
export function inspectOversize(
  head: Buffer,
  maxMessageBytes: number,
  messageBytes: number | undefined,
): RefusalAction {
  const recovered = recoverRequestHead(head.subarray(0, OVERSIZE_HEAD_BYTES).toString('utf8'));
  if (recovered.idToken !== undefined && recovered.method !== undefined) {
    return {
      type: 'reply',
      text: errorResponseText(recovered.idToken, wireErrors.messageTooLarge(maxMessageBytes, messageBytes)),
      note: 'oversized request; answered with an error',
    };
  }
  return {
    type: 'close',
    code: CloseCode.MessageTooBig,
    reason: `message exceeds the ${maxMessageBytes}-byte limit`,
  };
}

/** Truncates a WebSocket close reason to the protocol's 123-byte limit. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = reason.slice(0, 120);
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/** How one direction of a relay checks the frames it reads. */
export interface FrameRules {
  /**
   * Bytes that are not valid UTF-8: `trusted` (a WebSocket text frame, already checked by `ws`), `repair` (decoded
   * with U+FFFD replacements, as the mirror always did for its stdin), or `refuse`.
   */
  readonly utf8: 'trusted' | 'repair' | 'refuse';
  /** Drop one leading byte order mark before checking (an agent's stdout, as a UTF-8 text decoder would). */
  readonly stripByteOrderMark?: boolean;
  /** Replace raw line breaks (JSON whitespace) with spaces: required for frames that become NDJSON lines. */
  readonly singleLine: boolean;
  /** Members the direction's policy reads or rewrites (omit to validate only). */
  readonly watch?: WatchNode;
}

/** Why a frame was refused, with the JSON-RPC error the sender gets when the direction answers refusals. */
export interface Refusal {
  readonly reason: 'parse' | 'not-object' | 'batch' | 'utf8';
  readonly error: WireError;
  /** The frame (for its size and a short preview in a log line; never logged whole). */
  readonly bytes: Buffer;
}

// The answers to garbage and batches never change: made once, so a flood of bad frames costs no exceptions.
const PARSE_ERROR = wireErrors.parseError();
const BATCH_ERROR = wireErrors.invalidRequest(undefined, 'JSON-RPC batches are not supported');

/**
 * The checks every frame of one relay direction gets, in one pass: UTF-8 (per {@link FrameRules.utf8}), exactly one
 * JSON object (strict, like `JSON.parse`), no raw line break where the frame becomes a line, and the positions of
 * the members its policy watches. The size limit is checked before (by the WebSocket port or the line splitter).
 *
 * @example
 * ```ts
 * const checks = new FrameChecks({ utf8: 'trusted', singleLine: true });
 * const payload = checks.check(frameBytes); // the bytes to forward, or undefined (see checks.refusal)
 * ```
 */
export class FrameChecks {
  readonly scanner: FrameScanner;
  /** Set when {@link check} returns undefined. */
  refusal: Refusal | undefined;

  constructor(private readonly rules: FrameRules) {
    this.scanner = new FrameScanner(rules.watch);
  }

  /**
   * Checks one frame; returns the bytes to forward (the frame itself, or a copy with raw line breaks replaced by
   * spaces) or undefined when it is refused. The scanner's results describe the returned bytes.
   */
  check(frame: Buffer): Buffer | undefined {
    let bytes = frame;
    if (this.rules.stripByteOrderMark && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
    }
    if (this.rules.utf8 !== 'trusted' && !isUtf8(bytes)) {
      if (this.rules.utf8 === 'refuse') return this.refuse('utf8', PARSE_ERROR, bytes);
      bytes = Buffer.from(bytes.toString('utf8'));
    }
    const scanner = this.scanner;
    if (!scanner.scan(bytes)) {
      // The errors the SDK itself gives: parse error, batch, or (with the value as data) not an object.
      switch (scanner.topLevel) {
        case 'array':
          return this.refuse('batch', BATCH_ERROR, bytes);
        case 'scalar':
          return this.refuse(
            'not-object',
            wireErrors.invalidRequest(JSON.parse(bytes.toString('utf8'))),
            bytes,
          );
        default:
          return this.refuse('parse', PARSE_ERROR, bytes);
      }
    }
    if (scanner.lineBreaks && this.rules.singleLine) {
      const single = replaceLineBreaks(bytes);
      // Same length, same positions, only whitespace changed: the scan's results hold for the copy.
      scanner.replaceFrame(single);
      return single;
    }
    return bytes;
  }

  /** Forgets the last frame, so a big one is not kept alive until the next frame arrives. */
  release(): void {
    this.scanner.replaceFrame(EMPTY_FRAME);
    this.refusal = undefined;
  }

  private refuse(reason: Refusal['reason'], error: WireError, bytes: Buffer): undefined {
    this.refusal = { reason, error, bytes };
    return undefined;
  }
}

/** A copy of `bytes` with every raw `\r` and `\n` replaced by a space (they can only be whitespace there). */
function replaceLineBreaks(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  for (const breakByte of [LINE_FEED, CARRIAGE_RETURN]) {
    for (let index = copy.indexOf(breakByte); index !== -1; index = copy.indexOf(breakByte, index + 1)) {
      copy[index] = SPACE;
    }
  }
  return copy;
}

const replyTexts = new Map<WireError, string>();

/** The JSON-RPC error answer (id null) for a refused frame, and the note the relay logs. */
export function refusalReply(refusal: Pick<Refusal, 'reason' | 'error'>): { text: string; note: string } {
  const constant = refusal.error === PARSE_ERROR || refusal.error === BATCH_ERROR;
  let text = constant ? replyTexts.get(refusal.error) : undefined;
  if (text === undefined) {
    text = errorResponseText('null', refusal.error);
    if (constant) replyTexts.set(refusal.error, text);
  }
  return { text, note: `invalid message (${refusal.reason})` };
}
