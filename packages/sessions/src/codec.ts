// How a store turns what it is given (JSON values and Uint8Array binary parts, e.g. an AI SDK image part) into text
// and back. Every store but memory writes text, so one codec keeps binary parts the same in all of them.

/** The key of the one-key object a `Uint8Array` becomes: `{ "__acpkit_bytes_base64": "…" }`. */
export const BYTES_KEY = '__acpkit_bytes_base64';

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A value as stored text: JSON, with every `Uint8Array` (a `Buffer` too) and `ArrayBuffer` as a one-key object
 * holding its base64. `undefined` object fields are dropped, as JSON does.
 */
export function encodeValue(value: unknown): string {
  return JSON.stringify(
    value,
    function replace(this: Record<string, unknown>, key: string, converted: unknown) {
      // `converted` is after `toJSON` (a Buffer's is `{ type, data }`), so look at the holder's own value.
      const raw = this[key];
      if (raw instanceof Uint8Array) return { [BYTES_KEY]: toBase64(raw) };
      if (raw instanceof ArrayBuffer) return { [BYTES_KEY]: toBase64(new Uint8Array(raw)) };
      return converted;
    },
  );
}

/** The value `encodeValue` wrote: binary parts come back as `Uint8Array`. @throws SyntaxError on text that is not JSON. */
export function decodeValue(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const base64 = (value as Record<string, unknown>)[BYTES_KEY];
      if (keys.length === 1 && typeof base64 === 'string') {
        const buffer = Buffer.from(base64, 'base64');
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      }
    }
    return value;
  });
}

/** UTF-8 bytes of stored text: what the per-session bound counts. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
