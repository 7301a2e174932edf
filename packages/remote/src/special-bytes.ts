/**
 * Finding the end of a long JSON string: the first byte that is a quote, a backslash or a control character
 * (below 0x20, never allowed raw in a string). It is the frame scanner's hot loop: a 1 MiB message is one long
 * string. Hand-written because no library offers "first byte of a set" over a Buffer: `indexOf` finds one byte
 * value at a time, and a JavaScript loop reads at most four bytes per step. WebAssembly SIMD compares sixteen bytes
 * per step (after a copy into its memory, which costs less than a tenth of the scan it replaces); where WebAssembly
 * is unavailable (`--jitless`), {@link javaScriptFinder} does the same job with native `indexOf` for the two
 * delimiters and a four-bytes-at-a-time check for control characters. Both are exact and tested against each other.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/** Finds the first quote, backslash or control byte in `bytes[from, to)`; returns its index, or -1. */
export interface SpecialByteFinder {
  find(bytes: Buffer, from: number, to: number): number;
}

/**
 * The WebAssembly module, as bytes (too small to ship as a file). Its one function `find(length)` scans
 * `memory[0, length)` and returns the offset of the first special byte, or `length`:
 *
 * ```wat
 * (module
 *   (memory (export "memory") 1)
 *   (func (export "find") (param $length i32) (result i32)
 *     (local $at i32) (local $hits v128) (local $byte i32)
 *     (local $v v128) (local $quote v128) (local $backslash v128) (local $space v128)
 *     (local.set $quote (i8x16.splat (i32.const 0x22)))
 *     (local.set $backslash (i8x16.splat (i32.const 0x5c)))
 *     (local.set $space (i8x16.splat (i32.const 0x20)))
 *     (block $found (loop $sixtyFour                            ;; 64 bytes per step while none is special
 *       (br_if $found (i32.gt_u (i32.add (local.get $at) (i32.const 64)) (local.get $length)))
 *       (br_if $found (v128.any_true (v128.or (v128.or (hits $at offset=0) (hits $at offset=16))
 *         (v128.or (hits $at offset=32) (hits $at offset=48)))))   ;; hits: the three comparisons below
 *       (local.set $at (i32.add (local.get $at) (i32.const 64)))
 *       (br $sixtyFour)))
 *     (block $tail (loop $sixteen                               ;; 16 bytes per step
 *       (br_if $tail (i32.gt_u (i32.add (local.get $at) (i32.const 16)) (local.get $length)))
 *       (local.set $v (v128.load (local.get $at)))
 *       (local.set $hits (v128.or (v128.or (i8x16.eq (local.get $v) (local.get $quote))
 *         (i8x16.eq (local.get $v) (local.get $backslash))) (i8x16.lt_u (local.get $v) (local.get $space))))
 *       (if (v128.any_true (local.get $hits))
 *         (then (return (i32.add (local.get $at) (i32.ctz (i8x16.bitmask (local.get $hits)))))))
 *       (local.set $at (i32.add (local.get $at) (i32.const 16)))
 *       (br $sixteen)))
 *     (block $done (loop $one                                   ;; the last bytes, one at a time
 *       (br_if $done (i32.ge_u (local.get $at) (local.get $length)))
 *       (local.set $byte (i32.load8_u (local.get $at)))
 *       (br_if $done (i32.or (i32.or (i32.eq (local.get $byte) (i32.const 0x22))
 *         (i32.eq (local.get $byte) (i32.const 0x5c))) (i32.lt_u (local.get $byte) (i32.const 0x20))))
 *       (local.set $at (i32.add (local.get $at) (i32.const 1)))
 *       (br $one)))
 *     (local.get $at)))
 * ```
 */
// biome-ignore format: one instruction per line, as in the text above
const MODULE_HEAD = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f, // type section: (i32) -> i32
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x05, 0x03, 0x01, 0x00, 0x01, // memory section: one memory, min 1 page
  0x07, 0x11, 0x02, // export section: two exports
  0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, // "memory": memory 0
  0x04, 0x66, 0x69, 0x6e, 0x64, 0x00, 0x00, // "find": function 0
];
// biome-ignore format: one instruction per line, as in the text above
const FUNCTION_BODY = [
  0x04, 0x01, 0x7f, 0x01, 0x7b, 0x01, 0x7f, 0x04, 0x7b, // locals: $at i32, $hits v128, $byte i32, $v $quote $backslash $space v128
  0x41, 0x22, 0xfd, 0x0f, 0x21, 0x05, // $quote = i8x16.splat 0x22
  0x41, 0xdc, 0x00, 0xfd, 0x0f, 0x21, 0x06, // $backslash = i8x16.splat 0x5c
  0x41, 0x20, 0xfd, 0x0f, 0x21, 0x07, // $space = i8x16.splat 0x20
  0x02, 0x40, 0x03, 0x40, // block $found64, loop $sixty-four
  0x20, 0x01, 0x41, 0xc0, 0x00, 0x6a, 0x20, 0x00, 0x4b, 0x0d, 0x01, // br_if $found64 (at + 64 > length)
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x22, 0x04, 0x20, 0x05, 0xfd, 0x23, 0x20, 0x04, 0x20, 0x06, 0xfd, 0x23, 0xfd, 0x50, 0x20, 0x04, 0x20, 0x07, 0xfd, 0x26, 0xfd, 0x50, // hits of at+0
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x10, 0x22, 0x04, 0x20, 0x05, 0xfd, 0x23, 0x20, 0x04, 0x20, 0x06, 0xfd, 0x23, 0xfd, 0x50, 0x20, 0x04, 0x20, 0x07, 0xfd, 0x26, 0xfd, 0x50, // hits of at+16
  0xfd, 0x50, // or
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x20, 0x22, 0x04, 0x20, 0x05, 0xfd, 0x23, 0x20, 0x04, 0x20, 0x06, 0xfd, 0x23, 0xfd, 0x50, 0x20, 0x04, 0x20, 0x07, 0xfd, 0x26, 0xfd, 0x50, // hits of at+32
  0xfd, 0x50, // or
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x30, 0x22, 0x04, 0x20, 0x05, 0xfd, 0x23, 0x20, 0x04, 0x20, 0x06, 0xfd, 0x23, 0xfd, 0x50, 0x20, 0x04, 0x20, 0x07, 0xfd, 0x26, 0xfd, 0x50, // hits of at+48
  0xfd, 0x50, 0xfd, 0x53, 0x0d, 0x01, // or; br_if $found64 (any_true): the 16-byte loop finds where
  0x20, 0x01, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0x01, // at += 64
  0x0c, 0x00, 0x0b, 0x0b, // br $sixty-four, end loop, end block
  0x02, 0x40, 0x03, 0x40, // block $tail, loop $sixteen
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x20, 0x00, 0x4b, 0x0d, 0x01, // br_if $tail (at + 16 > length)
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x22, 0x04, // $v = v128.load at (tee)
  0x20, 0x05, 0xfd, 0x23, // $v == $quote
  0x20, 0x04, 0x20, 0x06, 0xfd, 0x23, 0xfd, 0x50, // | $v == $backslash
  0x20, 0x04, 0x20, 0x07, 0xfd, 0x26, 0xfd, 0x50, // | $v <u $space
  0x22, 0x02, 0xfd, 0x53, 0x04, 0x40, // if (v128.any_true ($hits = ...))
  0x20, 0x01, 0x20, 0x02, 0xfd, 0x64, 0x68, 0x6a, 0x0f, // return at + ctz(bitmask $hits)
  0x0b, // end if
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01, // at += 16
  0x0c, 0x00, 0x0b, 0x0b, // br $sixteen, end loop, end block
  0x02, 0x40, 0x03, 0x40, // block $done, loop $one
  0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, // br_if $done (at >= length)
  0x20, 0x01, 0x2d, 0x00, 0x00, 0x21, 0x03, // $byte = load8_u at
  0x20, 0x03, 0x41, 0x22, 0x46, 0x20, 0x03, 0x41, 0xdc, 0x00, 0x46, 0x72, // byte == 0x22 | byte == 0x5c
  0x20, 0x03, 0x41, 0x20, 0x49, 0x72, 0x0d, 0x01, // | byte <u 0x20: br_if $done
  0x20, 0x01, 0x41, 0x01, 0x6a, 0x21, 0x01, // at += 1
  0x0c, 0x00, 0x0b, 0x0b, // br $one, end loop, end block
  0x20, 0x01, 0x0b, // local.get $at, end function
];

/** Unsigned LEB128, as WebAssembly writes sizes. */
function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return bytes;
}

function moduleBytes(): Uint8Array {
  const body = [...leb128(FUNCTION_BODY.length), ...FUNCTION_BODY];
  const section = [0x01, ...body]; // one function body
  return Uint8Array.from([...MODULE_HEAD, 0x0a, ...leb128(section.length), ...section]);
}

/** Bytes copied into WebAssembly memory per call at most (its one 64 KiB page). */
const WINDOW_BYTES = 64 * 1024;
/** The first window is small: most strings that reach this path end within a few hundred bytes. */
const FIRST_WINDOW_BYTES = 512;

/** The few WebAssembly APIs used (the package's TypeScript libs carry no WebAssembly types). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
  ) => { exports: { find: (length: number) => number; memory: { buffer: ArrayBuffer } } };
}

function createWebAssemblyFinder(): SpecialByteFinder | undefined {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined) return undefined; // e.g. `node --jitless`
  try {
    const { exports } = new api.Instance(new api.Module(moduleBytes()));
    const find = exports.find;
    const memory = Buffer.from(exports.memory.buffer);
    return {
      find(bytes, from, to) {
        let start = from;
        let window = FIRST_WINDOW_BYTES;
        while (start < to) {
          const length = Math.min(window, to - start);
          bytes.copy(memory, 0, start, start + length);
          const offset = find(length);
          if (offset < length) return start + offset;
          start += length;
          window = WINDOW_BYTES;
        }
        return -1;
      },
    };
  } catch {
    // No SIMD in this engine: the JavaScript finder does the same.
    return undefined;
  }
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
export const webAssemblyFinder: SpecialByteFinder | undefined = createWebAssemblyFinder();

/** The finder the scanner uses. */
export const specialByteFinder: SpecialByteFinder = webAssemblyFinder ?? javaScriptFinder;
