// Reads the route keys of a whole frame handed over without them: one scanner and one compiled watch per reader.
import { compileWatch, FrameScanner } from './frame-scan.js';
import { ROUTE_WATCH, type RouteKeys, readRouteKeys, routeNodesOf } from './route-keys.js';

/**
 * The route keys of a frame that arrives without its scan (a relay's own answer, a frame the SDK stream wrote):
 * scans it once and reads what routing needs. A frame that does not scan is taken for a response (it carries no
 * method). One reader per owner: its scanner is reused, never shared across owners that may interleave.
 *
 * @example
 * ```ts
 * const reader = new RouteKeyReader();
 * reader.read('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}').kind; // 'request'
 * ```
 */
export class RouteKeyReader {
  readonly #watch = compileWatch(ROUTE_WATCH);
  readonly #scanner = new FrameScanner(this.#watch);
  readonly #nodes = routeNodesOf(this.#watch);

  /** The route keys of `payload` (one JSON-RPC message). */
  read(payload: Buffer | string): RouteKeys {
    const scanner = this.#scanner;
    if (!scanner.scan(typeof payload === 'string' ? Buffer.from(payload) : payload))
      return { kind: 'response' };
    return readRouteKeys(scanner, this.#nodes);
  }
}
