// What routing a message needs (its kind, id, method and session ids), read from the relay's one scan of a frame
// (no JSON.parse) or from a message object: Streamable HTTP routes by them, a WebSocket never asks.

import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import type { CursorSlot } from './cursor-slot.js';
import { compileWatch, type FrameScanner, ValueKind, type WatchNode } from './frame-scan.js';
import { idKey, type WireId } from './json-rpc.js';

/**
 * What routing needs of one JSON-RPC message: its kind, its id (as `idKey` writes it), its method, `params.sessionId`
 * and `result.sessionId` when they are strings.
 */
export interface RouteKeys {
  readonly kind: 'request' | 'notification' | 'response';
  readonly id?: string | undefined;
  readonly method?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly resultSessionId?: string | undefined;
  /** Where the durable-resume cursor goes in the very frame scanned (only for a port whose watch asks for it). */
  readonly cursorSlot?: CursorSlot | undefined;
}

/** What routing watches in a frame (a `WatchSpec`). */
export const ROUTE_WATCH = {
  id: true,
  method: true,
  params: { sessionId: true },
  result: { sessionId: true },
} as const;

/** Whether `token` is an integer `Number` keeps exactly, written as `JSON.stringify` writes it (its own key). */
function isPlainInteger(token: string): boolean {
  const start = token.charCodeAt(0) === 0x2d ? 1 : 0;
  const digits = token.length - start;
  if (digits < 1 || digits > 15) return false;
  if (token.charCodeAt(start) === 0x30) return token.length === 1;
  for (let index = start; index < token.length; index += 1) {
    const code = token.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/**
 * The key of the id member `member` as a JSON parser sees the id (`1`, `1.0` and `1e0` are one id, `"1"` another),
 * the same key `idKey` gives the parsed value; undefined for an id no JSON-RPC peer accepts (an object, a boolean).
 */
export function scannedIdKey(scan: FrameScanner, member: number): string | undefined {
  const kind = scan.memberValueKind[member];
  if (kind === ValueKind.String)
    return scan.memberValueEscaped[member] === 0
      ? scan.memberToken(member)
      : idKey(scan.memberString(member));
  if (kind === ValueKind.Number) {
    const token = scan.memberToken(member);
    return isPlainInteger(token) ? token : idKey(Number(token));
  }
  if (kind === ValueKind.Null) return 'null';
  return undefined;
}

/** The watch nodes {@link readRouteKeys} compares members against, found by name in a (possibly larger) watch. */
export interface RouteNodes {
  readonly id: WatchNode;
  readonly method: WatchNode;
  readonly params: WatchNode;
  readonly paramsSessionId: WatchNode;
  readonly result: WatchNode;
  readonly resultSessionId: WatchNode;
}

/** The route nodes of `root`, which must watch at least {@link ROUTE_WATCH}. */
export function routeNodesOf(root: WatchNode = compileWatch(ROUTE_WATCH)): RouteNodes {
  const child = (node: WatchNode, key: string) => {
    const found = node.childNamed(key);
    if (found === undefined)
      throw new AcpRemoteError(AcpRemoteErrorCode.InternalError, `the watch does not record ${key}`);
    return found;
  };
  const params = child(root, 'params');
  const result = child(root, 'result');
  return {
    id: child(root, 'id'),
    method: child(root, 'method'),
    params,
    paramsSessionId: child(params, 'sessionId'),
    result,
    resultSessionId: child(result, 'sessionId'),
  };
}

/**
 * Reads the route keys of the frame `scan` last scanned (the last of duplicate members wins, as `JSON.parse` does).
 * A frame with a `method` is a request (with an id) or a notification; any other frame is a response.
 */
export function readRouteKeys(scan: FrameScanner, nodes: RouteNodes): RouteKeys {
  let id = -1;
  let method = -1;
  let paramsObject = -1;
  let resultObject = -1;
  for (let member = 0; member < scan.memberCount; member += 1) {
    if (scan.memberObject[member] !== 0) continue;
    const node = scan.memberNode[member];
    if (node === nodes.id) id = member;
    else if (node === nodes.method) method = member;
    else if (node === nodes.params) paramsObject = scan.memberChildObject[member] ?? -1;
    else if (node === nodes.result) resultObject = scan.memberChildObject[member] ?? -1;
  }
  const stringIn = (object: number, node: WatchNode): string | undefined => {
    if (object < 0) return undefined;
    let found: string | undefined;
    for (let member = 0; member < scan.memberCount; member += 1) {
      if (scan.memberObject[member] !== object || scan.memberNode[member] !== node) continue;
      found = scan.memberValueKind[member] === ValueKind.String ? scan.memberString(member) : undefined;
    }
    return found;
  };
  const methodName =
    method >= 0 && scan.memberValueKind[method] === ValueKind.String ? scan.memberString(method) : undefined;
  const key = id >= 0 ? scannedIdKey(scan, id) : undefined;
  return {
    kind: methodName === undefined ? 'response' : id >= 0 ? 'request' : 'notification',
    id: key,
    method: methodName,
    sessionId: stringIn(paramsObject, nodes.paramsSessionId),
    resultSessionId: stringIn(resultObject, nodes.resultSessionId),
  };
}

/**
 * The route keys of a JSON-RPC message object (what `serveAcp` and `connectAcp` hand a port): the same keys
 * {@link readRouteKeys} reads from a scan of its JSON text.
 *
 * @example
 * ```ts
 * routeKeysOf({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's' } });
 * // { kind: 'request', id: '3', method: 'session/prompt', sessionId: 's', resultSessionId: undefined }
 * ```
 */
export function routeKeysOf(message: Readonly<Record<string, unknown>>): RouteKeys {
  const hasMethod = typeof message.method === 'string';
  const id = message.id;
  const hasId = typeof id === 'string' || typeof id === 'number' || id === null;
  const stringAt = (object: unknown, key: string): string | undefined => {
    if (object === null || typeof object !== 'object') return undefined;
    const value = (object as Record<string, unknown>)[key];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    kind: hasMethod ? ('id' in message ? 'request' : 'notification') : 'response',
    id: hasId ? idKey(id as WireId) : undefined,
    method: hasMethod ? (message.method as string) : undefined,
    sessionId: stringAt(message.params, 'sessionId'),
    resultSessionId: stringAt(message.result, 'sessionId'),
  };
}
