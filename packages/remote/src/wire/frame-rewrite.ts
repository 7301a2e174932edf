// Byte splices of a scanned frame: rewrites that change only the bytes they mean to.
import { type FrameScanner, ValueKind, type WatchNode } from './frame-scan.js';

/**
 * Byte-level edits of one frame at positions its scan found: everything outside the edits stays exactly as
 * received (ids like `12345678901234567890`, numbers like `1.10`, key order, whitespace), and nothing recurses, so
 * any nesting depth the scan accepted can be rewritten. Several inserts at one position keep their order.
 */
export class ByteSplice {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly texts: string[] = [];
  /** Members appended per object record, so the second one gets its comma even in an empty object. */
  private readonly appended = new Map<number, number>();

  get isEmpty(): boolean {
    return this.starts.length === 0;
  }

  /** Replaces `bytes[start, end)` with `text`. */
  replace(start: number, end: number, text: string): void {
    this.starts.push(start);
    this.ends.push(end);
    this.texts.push(text);
  }

  /** Inserts `text` before `bytes[at]`. */
  insert(at: number, text: string): void {
    this.replace(at, at, text);
  }

  /** Appends `"key":value` (value as JSON text) to the object `object` of `scan`, before its closing brace. */
  appendMember(scan: FrameScanner, object: number, key: string, value: string): void {
    const appended = this.appended.get(object) ?? 0;
    const separator = scan.objectMembers[object]! > 0 || appended > 0 ? ',' : '';
    this.appended.set(object, appended + 1);
    this.insert(scan.objectClose[object]!, `${separator}${JSON.stringify(key)}:${value}`);
  }

  /** The edited copy of `bytes` (edits must not overlap). */
  apply(bytes: Buffer): Buffer {
    const order = this.starts.map((_, index) => index);
    // Stable: inserts at one position keep the order they were made in.
    order.sort((left, right) => this.starts[left]! - this.starts[right]! || left - right);
    const parts: Buffer[] = [];
    let cursor = 0;
    for (const index of order) {
      const start = this.starts[index]!;
      if (start > cursor) parts.push(bytes.subarray(cursor, start));
      parts.push(Buffer.from(this.texts[index]!, 'utf8'));
      cursor = Math.max(cursor, this.ends[index]!);
    }
    if (cursor < bytes.length) parts.push(bytes.subarray(cursor));
    return Buffer.concat(parts);
  }
}

/**
 * Sets `key` to `value` (JSON text) in the object `object` (a record of the scan): every occurrence of the key is
 * replaced (parsers differ on which duplicate wins, so all of them say the same), or the member is appended before
 * the closing brace. An occurrence whose value already is `value`, byte for byte, is left alone.
 */
export function setMember(
  splice: ByteSplice,
  scan: FrameScanner,
  object: number,
  node: WatchNode,
  value: string,
): void {
  let found = false;
  for (let member = 0; member < scan.memberCount; member += 1) {
    if (scan.memberObject[member] !== object || scan.memberNode[member] !== node) continue;
    found = true;
    const start = scan.memberValueStart[member]!;
    const end = scan.memberValueEnd[member]!;
    if (end - start === value.length && scan.frame.toString('utf8', start, end) === value) continue;
    splice.replace(start, end, value);
  }
  if (!found) splice.appendMember(scan, object, node.key, value);
}

/**
 * Calls `each` for every occurrence of `node` in object `object`: with the object record of its value when the
 * value is an object whose members are watched, else -1. Returns whether there was any.
 */
export function forEachMember(
  scan: FrameScanner,
  object: number,
  node: WatchNode,
  each: (member: number, valueObject: number) => void,
): boolean {
  let found = false;
  for (let member = 0; member < scan.memberCount; member += 1) {
    if (scan.memberObject[member] !== object || scan.memberNode[member] !== node) continue;
    found = true;
    each(member, scan.memberValueKind[member] === ValueKind.Object ? scan.memberChildObject[member]! : -1);
  }
  return found;
}

/** The last occurrence of `node` in object `object` (the one `JSON.parse` keeps), or -1. */
export function lastMember(scan: FrameScanner, object: number, node: WatchNode): number {
  for (let member = scan.memberCount - 1; member >= 0; member -= 1) {
    if (scan.memberObject[member] === object && scan.memberNode[member] === node) return member;
  }
  return -1;
}
