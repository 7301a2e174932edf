import type { FrameKind, WireId } from './json-rpc.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MAX_DEPTH = 512;

/** Escapes allowed after `\` in a JSON string: `" \ / b f n r t u`. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LOWER_U = 0x75;

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** Top-level keys a relay policy reads. */
enum Key {
  Other = 0,
  Id = 1,
  Method = 2,
  Result = 3,
  Error = 4,
}

/** Kind of a scanned value, as far as the classification needs it. */
enum ValueKind {
  String = 0,
  Number = 1,
  Null = 2,
  Other = 3,
}

/**
 * Scanner state for one frame. A class (not closures) so V8 keeps one hidden class and the per-frame cost stays a
 * few field writes.
 */
class FrameScanner {
  index = 0;
  /** Set by {@link scanString}: whether the string just read contained an escape or a non-ASCII byte. */
  stringNeedsDecoding = false;
  /** Set by {@link scanValue}: the kind of the value just read. */
  valueKind = ValueKind.Other;
  /** Reads four bytes at a time inside strings (unaligned reads are fine for a DataView). */
  private readonly view: DataView;
  constructor(readonly bytes: Buffer) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  skipWhitespace(): void {
    const bytes = this.bytes;
    let index = this.index;
    while (index < bytes.length) {
      const byte = bytes[index]!;
      if (byte !== SPACE && byte !== TAB) break;
      index += 1;
    }
    this.index = index;
  }

  /** Reads a string starting at its opening quote; returns false on invalid content. */
  scanString(): boolean {
    const bytes = this.bytes;
    const length = bytes.length;
    const view = this.view;
    let index = this.index + 1;
    let needsDecoding = false;
    for (;;) {
      // Skip plain printable ASCII four bytes at a time: a word goes to the byte-wise path below only when one of
      // its bytes is below 0x20, a quote, a backslash or non-ASCII (bit tricks from "Bit Twiddling Hacks",
      // exact as a yes/no test).
      while (index + 4 <= length) {
        const word = view.getUint32(index, true);
        const quote = word ^ 0x22222222;
        const backslash = word ^ 0x5c5c5c5c;
        const special =
          ((word - 0x20202020) & ~word) |
          ((quote - 0x01010101) & ~quote) |
          ((backslash - 0x01010101) & ~backslash) |
          word;
        if ((special & 0x80808080) !== 0) break;
        index += 4;
      }
      if (index >= length) return false;
      const byte = bytes[index]!;
      if (byte === QUOTE) {
        this.index = index + 1;
        this.stringNeedsDecoding = needsDecoding;
        return true;
      }
      if (byte === BACKSLASH) {
        needsDecoding = true;
        const escaped = bytes[index + 1];
        if (escaped === undefined) return false;
        if (escaped === LOWER_U) {
          for (let offset = 2; offset <= 5; offset += 1) {
            const digit = bytes[index + offset];
            if (digit === undefined || !isHexDigit(digit)) return false;
          }
          index += 6;
          continue;
        }
        if (!SIMPLE_ESCAPES.has(escaped)) return false;
        index += 2;
        continue;
      }
      // JSON forbids raw control characters inside strings.
      if (byte < SPACE) return false;
      if (byte >= 0x80) needsDecoding = true;
      index += 1;
    }
  }

  /** Skips ASCII digits from `index`; returns the index after them. */
  skipDigits(index: number): number {
    const bytes = this.bytes;
    let position = index;
    while (position < bytes.length) {
      const byte = bytes[position]!;
      if (byte < ZERO || byte > NINE) break;
      position += 1;
    }
    return position;
  }

  scanNumber(): boolean {
    const bytes = this.bytes;
    let index = this.index;
    if (bytes[index] === MINUS) index += 1;
    const first = bytes[index];
    if (first === ZERO) index += 1;
    else if (first !== undefined && first > ZERO && first <= NINE) index = this.skipDigits(index + 1);
    else return false;
    if (bytes[index] === DOT) {
      const fractionEnd = this.skipDigits(index + 1);
      if (fractionEnd === index + 1) return false;
      index = fractionEnd;
    }
    const exponent = bytes[index];
    if (exponent === 0x65 || exponent === 0x45) {
      index += 1;
      const sign = bytes[index];
      if (sign === PLUS || sign === MINUS) index += 1;
      const exponentEnd = this.skipDigits(index);
      if (exponentEnd === index) return false;
      index = exponentEnd;
    }
    this.index = index;
    return true;
  }

  scanLiteral(literal: string): boolean {
    const bytes = this.bytes;
    for (let offset = 0; offset < literal.length; offset += 1) {
      if (bytes[this.index + offset] !== literal.charCodeAt(offset)) return false;
    }
    this.index += literal.length;
    return true;
  }

  /**
   * Reads one value (containers iteratively, so deep nesting cannot overflow the stack); sets
   * {@link valueKind}. Returns false on invalid JSON.
   */
  scanValue(): boolean {
    const bytes = this.bytes;
    const first = bytes[this.index];
    if (first === QUOTE) {
      this.valueKind = ValueKind.String;
      return this.scanString();
    }
    if (first === MINUS || (first !== undefined && first >= ZERO && first <= NINE)) {
      this.valueKind = ValueKind.Number;
      return this.scanNumber();
    }
    if (first === 0x6e) {
      this.valueKind = ValueKind.Null;
      return this.scanLiteral('null');
    }
    this.valueKind = ValueKind.Other;
    if (first === 0x74) return this.scanLiteral('true');
    if (first === 0x66) return this.scanLiteral('false');
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return false;
    return this.scanContainer();
  }

  /** Reads a nested object or array starting at its opening bracket. */
  private scanContainer(): boolean {
    const bytes = this.bytes;
    // Closing bracket expected for each open container.
    const closers: number[] = [];
    let byte = bytes[this.index]!;
    for (;;) {
      // At an opening bracket: enter it and read its first member, or close it at once when empty.
      if (closers.length >= MAX_DEPTH) return false;
      const isObject = byte === OPEN_BRACE;
      closers.push(isObject ? CLOSE_BRACE : CLOSE_BRACKET);
      this.index += 1;
      this.skipWhitespace();
      if (bytes[this.index] === closers[closers.length - 1]) {
        this.index += 1;
        closers.pop();
        if (closers.length === 0) {
          this.valueKind = ValueKind.Other;
          return true;
        }
      } else {
        if (!this.scanMemberHead(isObject)) return false;
        byte = bytes[this.index]!;
        if (byte === OPEN_BRACE || byte === OPEN_BRACKET) continue;
        if (!this.scanValue()) return false;
      }
      // After a member: a comma and the next member, or the closer (possibly several closers in a row).
      for (;;) {
        this.skipWhitespace();
        const next = bytes[this.index];
        const closer = closers[closers.length - 1]!;
        if (next === closer) {
          this.index += 1;
          closers.pop();
          if (closers.length === 0) {
            this.valueKind = ValueKind.Other;
            return true;
          }
          continue;
        }
        if (next !== COMMA) return false;
        this.index += 1;
        this.skipWhitespace();
        if (!this.scanMemberHead(closer === CLOSE_BRACE)) return false;
        byte = bytes[this.index]!;
        if (byte === OPEN_BRACE || byte === OPEN_BRACKET) break;
        if (!this.scanValue()) return false;
      }
    }
  }

  /** In an object, reads `"key" :` and the whitespace before the value; in an array, nothing. */
  private scanMemberHead(inObject: boolean): boolean {
    if (inObject) {
      if (this.bytes[this.index] !== QUOTE || !this.scanString()) return false;
      this.skipWhitespace();
      if (this.bytes[this.index] !== COLON) return false;
      this.index += 1;
      this.skipWhitespace();
    }
    return this.index < this.bytes.length;
  }
}

function bytesEqual(bytes: Buffer, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let offset = 0; offset < text.length; offset += 1) {
    if (bytes[start + offset] !== text.charCodeAt(offset)) return false;
  }
  return true;
}

function keyOf(bytes: Buffer, start: number, end: number): Key {
  // `start`/`end` bound the key without quotes (escaped keys never get here: the slow path handles them).
  if (bytesEqual(bytes, start, end, 'id')) return Key.Id;
  if (bytesEqual(bytes, start, end, 'method')) return Key.Method;
  if (bytesEqual(bytes, start, end, 'result')) return Key.Result;
  if (bytesEqual(bytes, start, end, 'error')) return Key.Error;
  return Key.Other;
}

function decodeString(bytes: Buffer, start: number, end: number, needsDecoding: boolean): string {
  // `start`/`end` include the quotes.
  if (!needsDecoding) return bytes.toString('latin1', start + 1, end - 1);
  return JSON.parse(bytes.toString('utf8', start, end)) as string;
}

/**
 * Classifies one NDJSON line or WebSocket text frame from its bytes, without decoding or parsing it: a strict JSON
 * validation in one pass that also picks up the top-level `id`, `method`, `result` and `error`. Returns undefined
 * whenever the fast path cannot vouch for the frame (invalid JSON, not an object, raw `\r`/`\n`, an escaped
 * top-level key, very deep nesting); the caller then takes the slow path (`JSON.parse`), which gives the exact
 * error or the newline rewrite. The bytes must already be valid UTF-8 (ws checks frames; lines use `isUtf8`).
 *
 * Hand-written because no JSON library validates bytes without building the value: `JSON.parse` needs the text
 * decoded first, and decoding plus parsing a 16 MiB frame costs ~100x this scan.
 */
export function scanFrame(bytes: Buffer): FrameKind | undefined {
  // Raw newlines need no search of their own: inside a string they are control characters (refused), elsewhere
  // whitespace the scan does not accept, so a frame with one always takes the slow path, which replaces them.
  const scanner = new FrameScanner(bytes);
  scanner.skipWhitespace();
  if (bytes[scanner.index] !== OPEN_BRACE) return undefined;
  scanner.index += 1;
  scanner.skipWhitespace();

  let hasId = false;
  let idKind = ValueKind.Other;
  let idStart = 0;
  let idEnd = 0;
  let idNeedsDecoding = false;
  let hasMethod = false;
  let methodIsString = false;
  let methodStart = 0;
  let methodEnd = 0;
  let methodNeedsDecoding = false;
  let hasResultOrError = false;

  if (bytes[scanner.index] === CLOSE_BRACE) {
    scanner.index += 1;
  } else {
    for (;;) {
      const keyStart = scanner.index;
      if (bytes[keyStart] !== QUOTE || !scanner.scanString()) return undefined;
      if (scanner.stringNeedsDecoding) return undefined;
      const key = keyOf(bytes, keyStart + 1, scanner.index - 1);
      scanner.skipWhitespace();
      if (bytes[scanner.index] !== COLON) return undefined;
      scanner.index += 1;
      scanner.skipWhitespace();
      const valueStart = scanner.index;
      if (!scanner.scanValue()) return undefined;
      // Duplicate keys: the last one wins, as with JSON.parse.
      switch (key) {
        case Key.Id:
          hasId = true;
          idKind = scanner.valueKind;
          idStart = valueStart;
          idEnd = scanner.index;
          idNeedsDecoding = scanner.stringNeedsDecoding;
          break;
        case Key.Method:
          hasMethod = true;
          methodIsString = scanner.valueKind === ValueKind.String;
          methodStart = valueStart;
          methodEnd = scanner.index;
          methodNeedsDecoding = scanner.stringNeedsDecoding;
          break;
        case Key.Result:
        case Key.Error:
          hasResultOrError = true;
          break;
        default:
          break;
      }
      scanner.skipWhitespace();
      const next = bytes[scanner.index];
      if (next === CLOSE_BRACE) {
        scanner.index += 1;
        break;
      }
      if (next !== COMMA) return undefined;
      scanner.index += 1;
      scanner.skipWhitespace();
    }
  }
  scanner.skipWhitespace();
  if (scanner.index !== bytes.length) return undefined;

  let id: WireId | undefined;
  if (hasId) {
    if (idKind === ValueKind.String) id = decodeString(bytes, idStart, idEnd, idNeedsDecoding);
    else if (idKind === ValueKind.Number) id = Number(bytes.toString('latin1', idStart, idEnd));
    else if (idKind === ValueKind.Null) id = null;
  }
  // Same rules as classifyFrame on the parsed object.
  if (hasMethod && methodIsString) {
    const method = decodeString(bytes, methodStart, methodEnd, methodNeedsDecoding);
    if (hasId && id !== undefined) return { kind: 'request', id, method };
    if (!hasId) return { kind: 'notification', method };
    return { kind: 'unknown' };
  }
  if (hasId && id !== undefined && hasResultOrError) return { kind: 'response', id };
  return { kind: 'unknown' };
}
