// Property tests of the special-byte finders, WebAssembly against JavaScript against the definition.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { javaScriptFinder, specialByteFinder, webAssemblyFinder } from './frame-scan-wasm.js';

/** The obvious definition: first quote, backslash or byte below 0x20 in [from, to). */
function reference(bytes: Buffer, from: number, to: number): number {
  for (let index = from; index < to; index += 1) {
    const byte = bytes[index]!;
    if (byte === 0x22 || byte === 0x5c || byte < 0x20) return index;
  }
  return -1;
}

const finders = [
  ['JavaScript', javaScriptFinder],
  ['WebAssembly', webAssemblyFinder],
] as const;

describe('special byte finders', () => {
  it('uses WebAssembly SIMD on the Node versions we support', () => {
    expect(webAssemblyFinder).toBeDefined();
    expect(specialByteFinder).toBe(webAssemblyFinder);
  });

  it.each(finders)(
    '%s: finds every special byte at every position and alignment, and none in plain bytes',
    (_name, finder) => {
      // Mismatches are collected and asserted once: a million expect() calls cost more than the finders themselves.
      const mismatches: string[] = [];
      const plain = [0x78, 0x20, 0xe9, 0x7f, 0x80, 0xff, 0x21, 0x5b];
      for (const special of [0x22, 0x5c, 0x00, 0x01, 0x0a, 0x1f, undefined]) {
        for (let length = 0; length < 150; length += 1) {
          for (const shift of [0, 1, 2, 3]) {
            const backing = Buffer.alloc(length + shift);
            const bytes = backing.subarray(shift);
            for (let index = 0; index < length; index += 1) bytes[index] = plain[index % plain.length]!;
            for (let at = special === undefined ? -1 : 0; at < length; at += at < 70 ? 1 : 13) {
              if (at >= 0) bytes[at] = special!;
              for (const [from, to] of [
                [0, length],
                [Math.min(5, length), length],
                [0, Math.max(0, length - 3)],
              ] as const) {
                const found = finder!.find(bytes, from, to);
                const wanted = reference(bytes, from, to);
                if (found !== wanted) {
                  mismatches.push(
                    `special=${special} length=${length} shift=${shift} at=${at} [${from},${to}): ${found} != ${wanted}`,
                  );
                }
              }
              if (at >= 0) bytes[at] = plain[at % plain.length]!;
              if (at < 0) break;
            }
          }
        }
      }
      expect(mismatches).toEqual([]);
    },
  );

  it.each(finders)('%s: agrees with the definition on random bytes across its windows', (_name, finder) => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.nat(),
        (length, placed, fromSeed) => {
          const bytes = Buffer.alloc(length, 0x61);
          for (const [position, value] of placed) if (length > 0) bytes[position % length] = value;
          const from = length === 0 ? 0 : fromSeed % length;
          expect(finder!.find(bytes, from, length)).toBe(reference(bytes, from, length));
        },
      ),
      { numRuns: 300 },
    );
  });
});
