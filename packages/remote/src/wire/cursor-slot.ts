// Where a frame's `_meta["acp/cursor"]` (the durable-resume draft's cursor) goes, read from the relay's one scan, and
// the splice that puts a stream's cursor there without parsing or re-serialising the frame.
import type { FrameScanner, WatchNode, WatchSpec } from './frame-scan.js';

/** The `_meta` key of the durable-resume draft's cursor: the same value as the SSE event's `id:`. */
export const CURSOR_META_KEY = 'acp/cursor';

/** The members a cursor slot is read from (merged into a port's route watch). */
export const CURSOR_WATCH: WatchSpec = {
  params: { _meta: { [CURSOR_META_KEY]: true } },
  result: { _meta: { [CURSOR_META_KEY]: true } },
};

/**
 * The texts around a spliced cursor, by shape: 0 replaces an existing `acp/cursor` value, 1 and 2 add `_meta` to a
 * body without one (2: a member follows), 3 and 4 add the key to an existing `_meta` (4: a member follows).
 */
const CURSOR_SHAPES: readonly (readonly [before: string, after: string])[] = [
  ['', ''],
  [`"_meta":{"${CURSOR_META_KEY}":`, '}'],
  [`"_meta":{"${CURSOR_META_KEY}":`, '},'],
  [`"${CURSOR_META_KEY}":`, ''],
  [`"${CURSOR_META_KEY}":`, ','],
];

/**
 * Where the cursor goes in `frame`: `frame[start, end)` is replaced by `before + JSON.stringify(cursor) + after`. A
 * request or notification carries it in `params._meta`, a response in `result._meta` (decided in
 * docs/remote-transport.md: an error response or a frame whose params/result is not an object carries none, the SSE
 * `id:` still does). An existing `acp/cursor` (a frame relayed from another durable server) is replaced.
 */
export interface CursorSlot {
  /** The bytes the positions refer to: a slot applies only to this very buffer. */
  readonly frame: Buffer;
  readonly start: number;
  readonly end: number;
  /** Which texts surround the cursor (an index of the shapes above). */
  readonly shape: number;
}

/**
 * A slot without its frame as one small integer (the shape, and how many bytes it replaces), so a kept event holds
 * two numbers rather than an object: its memory is what the retention budget's per-event overhead counts.
 */
export function packCursorSlot(slot: CursorSlot): number {
  return slot.shape + (slot.end - slot.start) * 8;
}

/** The text a packed slot splices in for `cursor` (an opaque string; ours are decimal event numbers). */
export function cursorText(packed: number, cursor: string): string {
  const [before, after] = CURSOR_SHAPES[packed % 8]!;
  return `${before}"${cursor}"${after}`;
}

/** How many bytes a packed slot adds to the frame for a cursor of `cursorLength` characters. */
export function cursorBytes(packed: number, cursorLength: number): number {
  const [before, after] = CURSOR_SHAPES[packed % 8]!;
  return before.length + after.length + cursorLength + 2 - Math.floor(packed / 8);
}

/** The watch nodes a slot is read through, found by name in a (possibly larger) watch. */
export interface CursorNodes {
  readonly params: WatchNode;
  readonly result: WatchNode;
  readonly paramsMeta: WatchNode;
  readonly resultMeta: WatchNode;
  readonly paramsCursor: WatchNode;
  readonly resultCursor: WatchNode;
}

/** The cursor nodes of `root`, or undefined when it does not watch {@link CURSOR_WATCH}. */
export function cursorNodesOf(root: WatchNode): CursorNodes | undefined {
  const params = root.childNamed('params');
  const result = root.childNamed('result');
  const paramsMeta = params?.childNamed('_meta');
  const resultMeta = result?.childNamed('_meta');
  const paramsCursor = paramsMeta?.childNamed(CURSOR_META_KEY);
  const resultCursor = resultMeta?.childNamed(CURSOR_META_KEY);
  if (!params || !result || !paramsMeta || !resultMeta || !paramsCursor || !resultCursor) return undefined;
  return { params, result, paramsMeta, resultMeta, paramsCursor, resultCursor };
}

/** The last member of object record `object` recorded through `node` (as `JSON.parse`, the last duplicate wins). */
function lastMember(scan: FrameScanner, object: number, node: WatchNode): number {
  let found = -1;
  for (let member = 0; member < scan.memberCount; member += 1)
    if (scan.memberObject[member] === object && scan.memberNode[member] === node) found = member;
  return found;
}

/**
 * The cursor slot of the frame `scan` last scanned (see {@link CursorSlot}), or undefined when it carries no cursor
 * in its body. Costs a pass over the recorded members (a handful), never over the frame.
 */
export function readCursorSlot(scan: FrameScanner, nodes: CursorNodes): CursorSlot | undefined {
  let method = false;
  let body = -1;
  let bodyNode: WatchNode | undefined;
  for (let member = 0; member < scan.memberCount; member += 1) {
    if (scan.memberObject[member] !== 0) continue;
    const node = scan.memberNode[member];
    if (node === nodes.params || node === nodes.result) {
      body = scan.memberChildObject[member] ?? -1;
      bodyNode = node;
    } else if (node?.key === 'method') method = true;
  }
  // A request or notification carries it in params, a response in result; a body that is not an object, none.
  if (body < 0 || (method ? bodyNode !== nodes.params : bodyNode !== nodes.result)) return undefined;
  const metaNode = method ? nodes.paramsMeta : nodes.resultMeta;
  const cursorNode = method ? nodes.paramsCursor : nodes.resultCursor;
  const frame = scan.frame;
  const metaMember = lastMember(scan, body, metaNode);
  if (metaMember < 0) {
    const at = scan.objectOpen[body]! + 1;
    return { frame, start: at, end: at, shape: scan.objectMembers[body]! > 0 ? 2 : 1 };
  }
  const meta = scan.memberChildObject[metaMember] ?? -1;
  // `_meta` that is not an object (null, a string): left as it is.
  if (meta < 0) return undefined;
  const cursorMember = lastMember(scan, meta, cursorNode);
  if (cursorMember >= 0) {
    const start = scan.memberValueStart[cursorMember]!;
    return { frame, start, end: scan.memberValueEnd[cursorMember]!, shape: 0 };
  }
  const at = scan.objectOpen[meta]! + 1;
  return { frame, start: at, end: at, shape: scan.objectMembers[meta]! > 0 ? 4 : 3 };
}
