/**
 * The frame scanner's WebAssembly module (source: `frame-scan.wat`, assembled into `frame-scan-module.ts`), and
 * finding the end of a long JSON string: the first byte that is a quote, a backslash or a control character (below
 * 0x20, never allowed raw in a string). Hand-written because no library offers "first byte of a set" over a Buffer
 * (`indexOf` finds one byte value at a time) or a strict JSON check of bytes, and a JavaScript loop over a Buffer
 * costs about twenty instructions per byte (V8 reloads the typed array's length and data pointer every step), where
 * WebAssembly reads sixteen bytes per step after one copy into its memory. Where WebAssembly is unavailable
 * (`--jitless`), {@link javaScriptFinder} does the finder's job with native `indexOf` for the two delimiters and a
 * four-bytes-at-a-time check for control characters. Both are exact and tested against each other.
 */

import { FRAME_SCAN_MODULE_BASE64 } from './frame-scan-module.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/** Finds the first quote, backslash or control byte in `bytes[from, to)`; returns its index, or -1. */
export interface SpecialByteFinder {
  find(bytes: Buffer, from: number, to: number): number;
}

/** Bytes copied into WebAssembly memory per call of `find` at most. */
const WINDOW_BYTES = 64 * 1024;
/** The largest frame the module scans whole (its input region, see frame-scan.wat). */
export const WEBASSEMBLY_FRAME_BYTES = 256 * 1024;
/** Where the module keeps its records (offsets into its memory, see frame-scan.wat). */
const OBJECTS_OFFSET = 295_488;
const MEMBERS_OFFSET = 299_584;
const RESULTS_OFFSET = 332_352;
const MAX_OBJECTS = 256;
const MAX_MEMBERS = 1024;
/** Deepest member the module records (its per-depth table holds 64 levels). */
export const MAX_RECORD_DEPTH = 32;
/** The first window is small: most strings that reach this path end within a few hundred bytes. */
const FIRST_WINDOW_BYTES = 512;

/** The few WebAssembly APIs used (the package's TypeScript libs carry no WebAssembly types). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: FrameScanExports };
}

interface FrameScanExports {
  memory: { buffer: ArrayBuffer };
  find(length: number): number;
  scan(length: number, recordDepth: number): number;
}

/** Outcome of {@link FrameScanModule.scan}. */
export const ScanStatus = { Invalid: 0, Object: 1, Array: 2, Scalar: 3, RecordsFull: 4 } as const;
/** Union of the values of {@link ScanStatus}. */
export type ScanStatus = (typeof ScanStatus)[keyof typeof ScanStatus];

function instantiate(): FrameScanExports | undefined {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined) return undefined; // e.g. `node --jitless`
  try {
    return new api.Instance(new api.Module(Buffer.from(FRAME_SCAN_MODULE_BASE64, 'base64'))).exports;
  } catch {
    // No SIMD in this engine: the JavaScript scanner and finder do the same.
    return undefined;
  }
}

const frameScanExports = instantiate();
/** The module's memory; it never grows, so this view stays valid. */
const moduleMemory = frameScanExports ? Buffer.from(frameScanExports.memory.buffer) : Buffer.alloc(0);

/**
 * The whole-frame scan in WebAssembly (frames up to {@link WEBASSEMBLY_FRAME_BYTES}): strict JSON validation and the
 * members of objects on object-only paths down to a depth, as records the frame scanner matches against its watch.
 * The record views stay valid (the module's memory never grows).
 */
export class FrameScanModule {
  /** After a scan: raw line breaks seen (0/1), deepest nesting, member records, object records. */
  readonly results: Int32Array;
  /** Object records: open, close, member count, unused (4 per object). */
  readonly objects: Int32Array;
  /**
   * Member records (8 per member): object, key start, key end, flags (bit 0 key escaped, bit 1 value escaped, bits
   * 4-7 value kind), value start, value end, child object (-1: none), unused.
   */
  readonly members: Int32Array;
  private readonly scanExport: (length: number, recordDepth: number) => number;

  constructor(exports: FrameScanExports) {
    const { buffer } = exports.memory;
    this.results = new Int32Array(buffer, RESULTS_OFFSET, 4);
    this.objects = new Int32Array(buffer, OBJECTS_OFFSET, MAX_OBJECTS * 4);
    this.members = new Int32Array(buffer, MEMBERS_OFFSET, MAX_MEMBERS * 8);
    this.scanExport = exports.scan;
  }

  /** Scans `frame` (at most {@link WEBASSEMBLY_FRAME_BYTES}); the records describe it until the next call. */
  scan(frame: Buffer, recordDepth: number): ScanStatus {
    moduleMemory.set(frame, 0);
    // A 0 byte is invalid everywhere in JSON: the module needs no bounds checks (see frame-scan.wat).
    moduleMemory[frame.length] = 0;
    return this.scanExport(frame.length, recordDepth) as ScanStatus;
  }
}

/** The whole-frame scan where WebAssembly SIMD runs, else undefined. */
export const frameScanModule: FrameScanModule | undefined = frameScanExports
  ? new FrameScanModule(frameScanExports)
  : undefined;

function createWebAssemblyFinder(exports: FrameScanExports): SpecialByteFinder {
  const find = exports.find;
  return {
    find(bytes, from, to) {
      let start = from;
      let window = FIRST_WINDOW_BYTES;
      while (start < to) {
        const length = Math.min(window, to - start);
        bytes.copy(moduleMemory, 0, start, start + length);
        const offset = find(length);
        if (offset < length) return start + offset;
        start += length;
        window = WINDOW_BYTES;
      }
      return -1;
    },
  };
}

/**
 * `(word - 0x20202020) & ~word & 0x80808080` is non-zero exactly when some byte of the word is below 0x20 (the
 * haszero/hasless trick from "Bit Twiddling Hacks": a borrow can only start at a byte that is itself below 0x20).
 */
function firstControlByte(bytes: Buffer, from: number, to: number): number {
  let index = from;
  const wordBase = (4 - ((bytes.byteOffset + from) & 3)) & 3;
  if (to - from >= 32) {
    for (const end = from + wordBase; index < end; index += 1) if (bytes[index]! < SPACE) return index;
    const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, (to - index) >> 2);
    let word = 0;
    const count = words.length;
    for (; word + 4 <= count; word += 4) {
      const a = words[word]!;
      const b = words[word + 1]!;
      const c = words[word + 2]!;
      const d = words[word + 3]!;
      if (
        (((a - 0x20202020) & ~a) |
          ((b - 0x20202020) & ~b) |
          ((c - 0x20202020) & ~c) |
          ((d - 0x20202020) & ~d)) &
        0x80808080
      )
        break;
    }
    index += word << 2;
  }
  for (; index < to; index += 1) if (bytes[index]! < SPACE) return index;
  return -1;
}

/** The fallback finder (also the reference the WebAssembly one is tested against). */
export const javaScriptFinder: SpecialByteFinder = {
  find(bytes, from, to) {
    let end = bytes.indexOf(QUOTE, from);
    if (end === -1 || end > to) end = to;
    const backslash = bytes.indexOf(BACKSLASH, from);
    if (backslash !== -1 && backslash < end) end = backslash;
    const control = firstControlByte(bytes, from, end);
    if (control !== -1) return control;
    return end < to ? end : -1;
  },
};

/** The WebAssembly finder where WebAssembly SIMD runs, else undefined. */
export const webAssemblyFinder: SpecialByteFinder | undefined = frameScanExports
  ? createWebAssemblyFinder(frameScanExports)
  : undefined;

/** The finder the scanner uses. */
export const specialByteFinder: SpecialByteFinder = webAssemblyFinder ?? javaScriptFinder;
