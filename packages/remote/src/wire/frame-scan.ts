/**
 * One pass over the bytes of a frame (a WebSocket text message or an NDJSON line): strict JSON validation, and, as
 * deep as the caller asks, the positions of the members a relay policy reads or rewrites. Nothing is decoded or
 * parsed here; a policy decodes the few short strings it needs (an id, a method) and rewrites by splicing bytes at
 * the recorded positions, so every byte it does not mean to change stays as it was.
 *
 * Hand-written because no JSON library validates bytes without building the value (`JSON.parse` needs the text
 * decoded first, and decoding plus parsing a 1 MiB frame costs ~2 ms, ~15x this scan), and none reports positions.
 * It is the relay's hot path, so it avoids allocation. Frames up to 256 KiB (nearly all) are scanned whole in
 * WebAssembly (`frame-scan.wat`: about a tenth of the instructions of the JavaScript loop below, which V8 compiles to
 * ~20 instructions per byte), which records the members of shallow objects; the watch is matched here against
 * those records. Larger frames, frames with more shallow members than the module records, and engines without
 * WebAssembly take the JavaScript scan, which crosses long strings with {@link specialByteFinder}. Both agree with
 * `JSON.parse` (property-tested, each on its own).
 *
 * The bytes must already be valid UTF-8 (ws checks text frames; the relay checks lines with `isUtf8`): the scan
 * accepts any byte >= 0x80 inside strings. Nesting depth is limited only by the frame size (the container stack
 * is a byte array, no recursion).
 */

import {
  frameScanModule,
  MAX_RECORD_DEPTH,
  ScanStatus,
  specialByteFinder,
  WEBASSEMBLY_FRAME_BYTES,
} from './frame-scan-wasm.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
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
const LOWER_U = 0x75;
/** Strings up to this length are read byte by byte: cheaper than a native call for keys and short values. */
const SHORT_STRING_BYTES = 64;

/** Kinds of a scanned value. */
export const ValueKind = {
  String: 0,
  Number: 1,
  Null: 2,
  True: 3,
  False: 4,
  Object: 5,
  Array: 6,
} as const;
/** Union of the values of {@link ValueKind}. */
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

/** Escapes allowed after `\` in a JSON string: `" \ / b f n r t` (and `u` with four hex digits). */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const byte of [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) SIMPLE_ESCAPE[byte] = 1;
const HEX_DIGIT = new Uint8Array(256);
for (const byte of Buffer.from('0123456789abcdefABCDEF')) HEX_DIGIT[byte] = 1;

/**
 * Which members to record, as a tree of object keys below the top-level object: `{ id: true, params: { cwd: true } }`
 * records the top-level `id` and `params`, and `params.cwd`. Arrays are never entered.
 */
export interface WatchSpec {
  readonly [key: string]: WatchSpec | true;
}

/** A compiled {@link WatchSpec} node. `id` numbers nodes in creation order (0 is the root). */
export class WatchNode {
  readonly children: WatchNode[] = [];
  /** Depth of the deepest key below this node (0: no children). */
  height = 0;
  constructor(
    readonly id: number,
    readonly key: string,
    readonly keyBytes: Buffer,
  ) {}

  /** The child whose key is the string between `start` and `end` (quotes excluded, no escapes). */
  childAt(bytes: Buffer, start: number, end: number): WatchNode | undefined {
    const length = end - start;
    const children = this.children;
    for (let index = 0; index < children.length; index += 1) {
      const key = children[index]!.keyBytes;
      if (key.length !== length || key[0] !== bytes[start]) continue;
      let offset = 1;
      while (offset < length && bytes[start + offset] === key[offset]) offset += 1;
      if (offset === length) return children[index];
    }
    return undefined;
  }

  /** The child named `key` (an escaped key, already decoded). */
  childNamed(key: string): WatchNode | undefined {
    return this.children.find((child) => child.key === key);
  }
}

/**
 * Compiles a {@link WatchSpec} once (at relay set-up, not per frame).
 *
 * @example
 * ```ts
 * const watch = compileWatch({ id: true, method: true, params: { cwd: true } });
 * ```
 */
export function compileWatch(spec: WatchSpec): WatchNode {
  let nextId = 0;
  const build = (key: string, children: WatchSpec | true): WatchNode => {
    const node = new WatchNode(nextId++, key, Buffer.from(key, 'utf8'));
    if (children !== true) {
      for (const [childKey, grandchildren] of Object.entries(children)) {
        const child = build(childKey, grandchildren);
        node.children.push(child);
        node.height = Math.max(node.height, child.height + 1);
      }
    }
    return node;
  };
  return build('', spec);
}

/**
 * Adds the keys of `spec` that `root` does not watch yet to `root` itself (its existing nodes, which a policy compares
 * members against, stay the same objects), or compiles `spec` when there is no `root`. Done once, before a scanner is
 * built on the watch (a scanner reads the watch's height when it is made).
 *
 * @example
 * ```ts
 * const watch = extendWatch(policyWatch, { id: true, params: { sessionId: true } });
 * ```
 */
export function extendWatch(root: WatchNode | undefined, spec: WatchSpec): WatchNode {
  if (root === undefined) return compileWatch(spec);
  let nextId = 0;
  const visit = (node: WatchNode) => {
    nextId = Math.max(nextId, node.id + 1);
    for (const child of node.children) visit(child);
  };
  visit(root);
  const add = (node: WatchNode, children: WatchSpec) => {
    for (const [key, grandchildren] of Object.entries(children)) {
      let child = node.childNamed(key);
      if (child === undefined) {
        child = new WatchNode(nextId++, key, Buffer.from(key, 'utf8'));
        node.children.push(child);
      }
      if (grandchildren !== true) add(child, grandchildren);
      node.height = Math.max(node.height, child.height + 1);
    }
  };
  add(root, spec);
  return root;
}

/**
 * Scans frames; one instance per relay direction, reused for every frame (its results describe the last frame
 * scanned and are overwritten by the next scan).
 *
 * @example
 * ```ts
 * const scanner = new FrameScanner(compileWatch({ id: true, method: true }));
 * if (scanner.scan(bytes)) console.log(scanner.memberCount);
 * ```
 */
export class FrameScanner {
  private bytes: Buffer = Buffer.alloc(0);
  /** Set by {@link scanString}: whether the string just read had an escape. */
  private stringHadEscape = false;
  /** Open containers: 1 for an object, 2 for an array. */
  private stack = new Uint8Array(64);

  /** Raw `\n` or `\r` between tokens (JSON whitespace, but not allowed on one NDJSON line). */
  lineBreaks = false;
  /** What the frame was, at the top level: only an `object` is accepted; the others name the refusal. */
  topLevel: 'object' | 'array' | 'scalar' | 'invalid' = 'invalid';
  /** Deepest container nesting of the frame (the top-level object is 1). */
  maxDepth = 0;

  /** Recorded members of watched objects, in order: node, object they belong to, key and value positions. */
  memberCount = 0;
  memberNode: WatchNode[] = [];
  memberObject = new Int32Array(16);
  memberKeyStart = new Int32Array(16);
  memberKeyEnd = new Int32Array(16);
  memberKeyEscaped = new Uint8Array(16);
  memberValueStart = new Int32Array(16);
  memberValueEnd = new Int32Array(16);
  memberValueKind = new Uint8Array(16);
  memberValueEscaped = new Uint8Array(16);
  /** Object record that a member's value opened (-1 unless the value is an object with watched keys). */
  memberChildObject = new Int32Array(16);

  /** Recorded watched objects (record 0 is the top-level object): node, braces and member count. */
  objectCount = 0;
  objectNode: WatchNode[] = [];
  objectOpen = new Int32Array(8);
  objectClose = new Int32Array(8);
  objectMembers = new Int32Array(8);

  // Containers on the watched path (always a prefix of the stack): their object record and the member they are
  // the value of.
  private trackedDepth = 0;
  private trackedObject = new Int32Array(8);
  private trackedMember = new Int32Array(8);
  private trackedNode: (WatchNode | undefined)[] = [];

  /** How deep the WebAssembly scan records members, or -1 to scan in JavaScript. */
  private readonly recordDepth: number;

  /**
   * @param watch - Members to record; omit it to validate only (no key is ever compared).
   * @param engine - `javascript` forces the JavaScript scan (tests run both).
   */
  constructor(
    private readonly watch?: WatchNode,
    engine: 'auto' | 'javascript' = 'auto',
  ) {
    const height = watch?.height ?? 0;
    this.recordDepth =
      engine === 'auto' && frameScanModule !== undefined && height <= MAX_RECORD_DEPTH ? height : -1;
  }

  /** The frame last scanned. */
  get frame(): Buffer {
    return this.bytes;
  }

  /**
   * Scans `bytes`; true when they are exactly one JSON object (whitespace around it allowed, raw line breaks
   * included: see {@link lineBreaks}). False for anything `JSON.parse` would refuse and for valid JSON that is not
   * an object; {@link topLevel} then says which.
   */
  scan(bytes: Buffer): boolean {
    this.bytes = bytes;
    this.lineBreaks = false;
    this.maxDepth = 0;
    this.memberCount = 0;
    this.objectCount = 0;
    this.trackedDepth = 0;
    this.topLevel = 'invalid';
    if (this.recordDepth >= 0 && bytes.length <= WEBASSEMBLY_FRAME_BYTES) {
      const module = frameScanModule!;
      const status = module.scan(bytes, this.recordDepth);
      if (status !== ScanStatus.RecordsFull) {
        const results = module.results;
        this.lineBreaks = results[0] !== 0;
        this.maxDepth = results[1]!;
        if (status === ScanStatus.Invalid) return false;
        this.topLevel =
          status === ScanStatus.Object ? 'object' : status === ScanStatus.Array ? 'array' : 'scalar';
        if (status !== ScanStatus.Object) return false;
        if (this.watch !== undefined) {
          this.collectMembers(module.objects, module.members, results[2]!, 0, this.watch, -1, 0);
        }
        return true;
      }
      this.lineBreaks = false;
      this.maxDepth = 0;
    }
    let index = this.skipWhitespace(0);
    const first = bytes[index];
    const isContainer = first === OPEN_BRACE || first === OPEN_BRACKET;
    index = isContainer ? this.scanContainers(index) : this.scanScalar(index);
    if (index < 0 || this.skipWhitespace(index) !== bytes.length) return false;
    this.topLevel = first === OPEN_BRACE ? 'object' : isContainer ? 'array' : 'scalar';
    return this.topLevel === 'object';
  }

  /**
   * Records object `object` of the module's records (watched through `node`, the value of member record `via` or
   * the top level) and, when `node` has children, its members whose keys they name, recursively: the same records,
   * in the same order, as the JavaScript scan makes. `from` is the first module member record that can belong to it.
   */
  private collectMembers(
    objects: Int32Array,
    members: Int32Array,
    count: number,
    object: number,
    node: WatchNode,
    via: number,
    from: number,
  ): void {
    const record = this.addObject(node, objects[object * 4]!);
    this.objectClose[record] = objects[object * 4 + 1]!;
    this.objectMembers[record] = objects[object * 4 + 2]!;
    if (via >= 0) this.memberChildObject[via] = record;
    if (node.children.length === 0) return;
    const bytes = this.bytes;
    for (let index = from; index < count; index += 1) {
      const base = index * 8;
      if (members[base] !== object) continue;
      const keyStart = members[base + 1]!;
      const keyEnd = members[base + 2]!;
      const flags = members[base + 3]!;
      const keyEscaped = flags & 1;
      const child =
        keyEscaped === 1
          ? node.childNamed(JSON.parse(bytes.toString('utf8', keyStart, keyEnd)) as string)
          : node.childAt(bytes, keyStart + 1, keyEnd - 1);
      if (child === undefined) continue;
      const member = this.addMember(child, record, keyStart, keyEnd, keyEscaped);
      const kind = flags >> 4;
      this.memberValueStart[member] = members[base + 4]!;
      this.memberValueEnd[member] = members[base + 5]!;
      this.memberValueKind[member] = kind;
      this.memberValueEscaped[member] = (flags >> 1) & 1;
      const childObject = members[base + 6]!;
      if (kind === ValueKind.Object && childObject >= 0)
        this.collectMembers(objects, members, count, childObject, child, member, index + 1);
    }
  }

  /** Makes the results refer to `bytes`, a copy of the frame scanned in which only whitespace bytes differ. */
  replaceFrame(bytes: Buffer): void {
    this.bytes = bytes;
  }

  /** Decodes the string value of member `member` (a short id or method; escapes go through `JSON.parse`). */
  memberString(member: number): string {
    const start = this.memberValueStart[member]!;
    const end = this.memberValueEnd[member]!;
    if (this.memberValueEscaped[member] === 0) return this.bytes.toString('utf8', start + 1, end - 1);
    return JSON.parse(this.bytes.toString('utf8', start, end)) as string;
  }

  /** The raw bytes of member `member`'s value, as text (a JSON token: `12345678901234567890`, `"a\u0041"`, ...). */
  memberToken(member: number): string {
    return this.bytes.toString('utf8', this.memberValueStart[member]!, this.memberValueEnd[member]!);
  }

  private skipWhitespace(start: number): number {
    const bytes = this.bytes;
    let index = start;
    for (;;) {
      const byte = bytes[index];
      if (byte === SPACE || byte === TAB) index += 1;
      else if (byte === LINE_FEED || byte === CARRIAGE_RETURN) {
        this.lineBreaks = true;
        index += 1;
      } else return index;
    }
  }

  /** Reads a string starting at its opening quote; returns the index after the closing quote, or -1. */
  private scanString(quoteIndex: number): number {
    const bytes = this.bytes;
    const length = bytes.length;
    let index = quoteIndex + 1;
    let escaped = false;
    // Short strings (keys, ids, methods, most values): byte by byte.
    const shortEnd = Math.min(length, index + SHORT_STRING_BYTES);
    while (index < shortEnd) {
      const byte = bytes[index]!;
      if (byte === QUOTE) {
        this.stringHadEscape = escaped;
        return index + 1;
      }
      if (byte === BACKSLASH) {
        const after = this.scanEscape(index);
        if (after < 0) return -1;
        escaped = true;
        index = after;
        continue;
      }
      if (byte < SPACE) return -1;
      index += 1;
    }
    // Long strings: straight to the next quote, backslash or control byte (SIMD where available).
    for (;;) {
      const special = specialByteFinder.find(bytes, index, length);
      if (special === -1) return -1;
      const byte = bytes[special]!;
      if (byte === QUOTE) {
        this.stringHadEscape = escaped;
        return special + 1;
      }
      if (byte !== BACKSLASH) return -1;
      const after = this.scanEscape(special);
      if (after < 0) return -1;
      escaped = true;
      index = after;
    }
  }

  /** Checks the escape sequence at `index` (a backslash); returns the index after it, or -1. */
  private scanEscape(index: number): number {
    const bytes = this.bytes;
    const escaped = bytes[index + 1];
    if (escaped === undefined) return -1;
    if (escaped === LOWER_U) {
      if (
        HEX_DIGIT[bytes[index + 2] ?? 0] === 0 ||
        HEX_DIGIT[bytes[index + 3] ?? 0] === 0 ||
        HEX_DIGIT[bytes[index + 4] ?? 0] === 0 ||
        HEX_DIGIT[bytes[index + 5] ?? 0] === 0
      ) {
        return -1;
      }
      return index + 6;
    }
    return SIMPLE_ESCAPE[escaped] === 1 ? index + 2 : -1;
  }

  private skipDigits(start: number): number {
    const bytes = this.bytes;
    let index = start;
    for (;;) {
      const byte = bytes[index];
      if (byte === undefined || byte < ZERO || byte > NINE) return index;
      index += 1;
    }
  }

  /** Reads a number; returns the index after it, or -1. */
  private scanNumber(start: number): number {
    const bytes = this.bytes;
    let index = start;
    if (bytes[index] === MINUS) index += 1;
    const first = bytes[index];
    if (first === ZERO) index += 1;
    else if (first !== undefined && first > ZERO && first <= NINE) index = this.skipDigits(index + 1);
    else return -1;
    if (bytes[index] === DOT) {
      const fractionEnd = this.skipDigits(index + 1);
      if (fractionEnd === index + 1) return -1;
      index = fractionEnd;
    }
    const exponent = bytes[index];
    if (exponent === 0x65 || exponent === 0x45) {
      index += 1;
      const sign = bytes[index];
      if (sign === PLUS || sign === MINUS) index += 1;
      const exponentEnd = this.skipDigits(index);
      if (exponentEnd === index) return -1;
      index = exponentEnd;
    }
    return index;
  }

  private scanLiteral(start: number, literal: string): number {
    const bytes = this.bytes;
    for (let offset = 0; offset < literal.length; offset += 1) {
      if (bytes[start + offset] !== literal.charCodeAt(offset)) return -1;
    }
    return start + literal.length;
  }

  /** Reads a scalar value starting at `index`; returns the index after it and sets `scalarKind`, or -1. */
  private scalarKind: ValueKind = ValueKind.Null;
  private scanScalar(index: number): number {
    const first = this.bytes[index];
    if (first === QUOTE) {
      this.scalarKind = ValueKind.String;
      return this.scanString(index);
    }
    this.stringHadEscape = false;
    if (first === MINUS || (first !== undefined && first >= ZERO && first <= NINE)) {
      this.scalarKind = ValueKind.Number;
      return this.scanNumber(index);
    }
    if (first === 0x6e) {
      this.scalarKind = ValueKind.Null;
      return this.scanLiteral(index, 'null');
    }
    if (first === 0x74) {
      this.scalarKind = ValueKind.True;
      return this.scanLiteral(index, 'true');
    }
    if (first === 0x66) {
      this.scalarKind = ValueKind.False;
      return this.scanLiteral(index, 'false');
    }
    return -1;
  }

  /**
   * Reads the top-level object and everything in it, iteratively. Returns the index after its closing brace, or -1.
   * `open` is the index of the opening brace.
   */
  private scanContainers(open: number): number {
    const bytes = this.bytes;
    let depth = 0;
    let index = open;
    // Kind of the innermost open container (kept in a local: read for every member).
    let inObject = true;
    // The recorded member whose value is the container being entered (-1: none).
    let member = -1;
    for (;;) {
      // At the opening byte of a container: enter it.
      inObject = bytes[index] === OPEN_BRACE;
      if (depth === this.stack.length) {
        const grown = new Uint8Array(this.stack.length * 2);
        grown.set(this.stack);
        this.stack = grown;
      }
      this.stack[depth] = inObject ? 1 : 2;
      depth += 1;
      if (depth > this.maxDepth) this.maxDepth = depth;
      // On the watched path: the top level, or the value of a recorded member.
      if (
        this.watch !== undefined &&
        depth === this.trackedDepth + 1 &&
        (depth === 1 ? inObject : member >= 0)
      ) {
        this.trackContainer(index, inObject, member);
      }
      // Whitespace is rare in frames: one comparison decides whether to skip any.
      index += 1;
      if (bytes[index]! <= SPACE) index = this.skipWhitespace(index);
      let afterValue = false;
      if (bytes[index] === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        index += 1;
        depth -= 1;
        if (depth < this.trackedDepth) this.closeTracked(index);
        if (depth === 0) return index;
        inObject = this.stack[depth - 1] === 1;
        afterValue = true;
      }
      for (;;) {
        if (afterValue) {
          // After a value: a comma and the next member, or the closer (possibly several in a row).
          if (bytes[index]! <= SPACE) index = this.skipWhitespace(index);
          const byte = bytes[index];
          if (byte === COMMA) {
            index += 1;
            if (bytes[index]! <= SPACE) index = this.skipWhitespace(index);
            afterValue = false;
            continue;
          }
          if (byte !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return -1;
          index += 1;
          depth -= 1;
          if (depth < this.trackedDepth) this.closeTracked(index);
          if (depth === 0) return index;
          inObject = this.stack[depth - 1] === 1;
          continue;
        }
        // A member of an object (`"key": value`) or an element of an array.
        member = -1;
        if (inObject) {
          if (bytes[index] !== QUOTE) return -1;
          const keyStart = index;
          index = this.scanString(index);
          if (index < 0) return -1;
          if (depth === this.trackedDepth) member = this.matchMember(keyStart, index);
          if (bytes[index]! <= SPACE) index = this.skipWhitespace(index);
          if (bytes[index] !== COLON) return -1;
          index += 1;
          if (bytes[index]! <= SPACE) index = this.skipWhitespace(index);
        }
        const first = bytes[index];
        if (first === OPEN_BRACE || first === OPEN_BRACKET) {
          if (member >= 0) {
            this.memberValueStart[member] = index;
            this.memberValueKind[member] = first === OPEN_BRACE ? ValueKind.Object : ValueKind.Array;
            this.memberValueEscaped[member] = 0;
          }
          break;
        }
        const valueStart = index;
        index = first === QUOTE ? this.scanStringValue(index) : this.scanScalar(index);
        if (index < 0) return -1;
        if (member >= 0) {
          this.memberValueStart[member] = valueStart;
          this.memberValueEnd[member] = index;
          this.memberValueKind[member] = this.scalarKind;
          this.memberValueEscaped[member] = this.stringHadEscape ? 1 : 0;
        }
        afterValue = true;
      }
    }
  }

  /** A string value (the common case of {@link scanScalar}, without its dispatch). */
  private scanStringValue(index: number): number {
    this.scalarKind = ValueKind.String;
    return this.scanString(index);
  }

  /** Puts a container on the watched path (the top level, or the value of a recorded member). */
  private trackContainer(open: number, isObject: boolean, member: number): void {
    const level = this.trackedDepth;
    const node = level === 0 ? this.watch : this.memberNode[member];
    let object = -1;
    if (isObject && node !== undefined) {
      object = this.addObject(node, open);
      if (member >= 0) this.memberChildObject[member] = object;
    }
    if (level === this.trackedObject.length) {
      this.trackedObject = grow(this.trackedObject);
      this.trackedMember = grow(this.trackedMember);
    }
    this.trackedObject[level] = object;
    this.trackedMember[level] = member;
    // Keys are compared only inside objects whose node has children.
    this.trackedNode[level] = isObject && node !== undefined && node.children.length > 0 ? node : undefined;
    this.trackedDepth = level + 1;
  }

  /** Leaves the innermost watched container, which closed just before `end`. */
  private closeTracked(end: number): void {
    const level = this.trackedDepth - 1;
    const object = this.trackedObject[level]!;
    if (object >= 0) this.objectClose[object] = end - 1;
    const member = this.trackedMember[level]!;
    if (member >= 0) this.memberValueEnd[member] = end;
    this.trackedDepth = level;
  }

  /** Counts a member of the innermost watched object and records it when its key is watched; returns its record. */
  private matchMember(keyStart: number, keyEnd: number): number {
    const level = this.trackedDepth - 1;
    const object = this.trackedObject[level]!;
    if (object >= 0) this.objectMembers[object] = this.objectMembers[object]! + 1;
    const node = this.trackedNode[level];
    if (node === undefined) return -1;
    const child = this.stringHadEscape
      ? node.childNamed(JSON.parse(this.bytes.toString('utf8', keyStart, keyEnd)) as string)
      : node.childAt(this.bytes, keyStart + 1, keyEnd - 1);
    if (child === undefined) return -1;
    return this.addMember(child, object, keyStart, keyEnd, this.stringHadEscape ? 1 : 0);
  }

  /** A new object record (watched through `node`, opening at `open`); its close and member count come later. */
  private addObject(node: WatchNode, open: number): number {
    const object = this.objectCount++;
    if (object === this.objectOpen.length) {
      this.objectOpen = grow(this.objectOpen);
      this.objectClose = grow(this.objectClose);
      this.objectMembers = grow(this.objectMembers);
    }
    this.objectNode[object] = node;
    this.objectOpen[object] = open;
    this.objectMembers[object] = 0;
    return object;
  }

  /** A new member record (its value's positions come later). */
  private addMember(
    node: WatchNode,
    object: number,
    keyStart: number,
    keyEnd: number,
    keyEscaped: number,
  ): number {
    const member = this.memberCount++;
    if (member === this.memberObject.length) this.growMembers();
    this.memberNode[member] = node;
    this.memberObject[member] = object;
    this.memberKeyStart[member] = keyStart;
    this.memberKeyEnd[member] = keyEnd;
    this.memberKeyEscaped[member] = keyEscaped;
    this.memberChildObject[member] = -1;
    return member;
  }

  private growMembers(): void {
    this.memberObject = grow(this.memberObject);
    this.memberKeyStart = grow(this.memberKeyStart);
    this.memberKeyEnd = grow(this.memberKeyEnd);
    this.memberKeyEscaped = grow(this.memberKeyEscaped);
    this.memberValueStart = grow(this.memberValueStart);
    this.memberValueEnd = grow(this.memberValueEnd);
    this.memberValueKind = grow(this.memberValueKind);
    this.memberValueEscaped = grow(this.memberValueEscaped);
    this.memberChildObject = grow(this.memberChildObject);
  }
}

function grow<Array extends Int32Array | Uint8Array>(array: Array): Array {
  const grown = new (array.constructor as new (length: number) => Array)(array.length * 2);
  grown.set(array);
  return grown;
}
