// The durable-resume cursor's slot: found in one scan, spliced without touching any other byte of the frame.
import { describe, expect, it } from 'vitest';
import { STREAM_ROUTE_WATCH } from '../streamable-http/server/http-server-port.js';
import {
  type CursorSlot,
  cursorBytes,
  cursorNodesOf,
  cursorText,
  packCursorSlot,
  readCursorSlot,
} from './cursor-slot.js';
import { compileWatch, FrameScanner } from './frame-scan.js';

const watch = compileWatch(STREAM_ROUTE_WATCH);
const nodes = cursorNodesOf(watch)!;

/** The frame with `cursor` spliced at its slot, or undefined when it has none. */
function stamped(text: string, cursor = '7', engine: 'auto' | 'javascript' = 'auto'): string | undefined {
  const scanner = new FrameScanner(watch, engine);
  const bytes = Buffer.from(text);
  expect(scanner.scan(bytes)).toBe(true);
  const slot: CursorSlot | undefined = readCursorSlot(scanner, nodes);
  if (slot === undefined) return undefined;
  expect(slot.frame).toBe(bytes);
  const packed = packCursorSlot(slot);
  const result =
    bytes.toString('utf8', 0, slot.start) + cursorText(packed, cursor) + bytes.toString('utf8', slot.end);
  expect(Buffer.byteLength(result)).toBe(bytes.length + cursorBytes(packed, cursor.length));
  return result;
}

describe('readCursorSlot', () => {
  for (const engine of ['auto', 'javascript'] as const) {
    it(`puts the cursor in params._meta of a notification or request (${engine})`, () => {
      const note = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"x":1}}}';
      expect(JSON.parse(stamped(note, '12', engine)!)).toEqual({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { _meta: { 'acp/cursor': '12' }, sessionId: 's', update: { x: 1 } },
      });
      const empty = '{"jsonrpc":"2.0","id":3,"method":"x","params":{}}';
      expect(JSON.parse(stamped(empty, '1', engine)!).params).toEqual({ _meta: { 'acp/cursor': '1' } });
    });

    it(`adds to an existing _meta and replaces an existing cursor, leaving every other byte (${engine})`, () => {
      const withMeta =
        '{"method":"m","params":{"a":1.10,"_meta":{"traceparent":"t"},"b":12345678901234567890}}';
      expect(stamped(withMeta, '5', engine)).toBe(
        '{"method":"m","params":{"a":1.10,"_meta":{"acp/cursor":"5","traceparent":"t"},"b":12345678901234567890}}',
      );
      const emptyMeta = '{"method":"m","params":{"_meta":{}}}';
      expect(stamped(emptyMeta, '5', engine)).toBe('{"method":"m","params":{"_meta":{"acp/cursor":"5"}}}');
      const relayed = '{"method":"m","params":{"_meta":{"acp/cursor":"upstream-9","k":1}}}';
      expect(stamped(relayed, '5', engine)).toBe(
        '{"method":"m","params":{"_meta":{"acp/cursor":"5","k":1}}}',
      );
    });

    it(`puts a response's cursor in result._meta; none for errors or non-object bodies (${engine})`, () => {
      expect(
        JSON.parse(stamped('{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}', '3', engine)!),
      ).toEqual({ jsonrpc: '2.0', id: 1, result: { _meta: { 'acp/cursor': '3' }, stopReason: 'end_turn' } });
      expect(stamped('{"jsonrpc":"2.0","id":1,"result":null}', '3', engine)).toBeUndefined();
      expect(
        stamped('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}', '3', engine),
      ).toBeUndefined();
      expect(stamped('{"jsonrpc":"2.0","method":"m","params":[1]}', '3', engine)).toBeUndefined();
      expect(stamped('{"jsonrpc":"2.0","method":"m","params":{"_meta":null}}', '3', engine)).toBeUndefined();
      // A request's result member (not a JSON-RPC shape, but valid JSON) is not where its cursor goes.
      expect(stamped('{"method":"m","result":{}}', '3', engine)).toBeUndefined();
    });
  }

  it('ignores a `_meta` nested deeper than params', () => {
    const nested = '{"method":"m","params":{"update":{"_meta":{"k":1}}}}';
    expect(JSON.parse(stamped(nested)!).params).toEqual({
      _meta: { 'acp/cursor': '7' },
      update: { _meta: { k: 1 } },
    });
  });
});
