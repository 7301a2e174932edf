// The running server as its user sees it: what `serveAcp` and `serveCommand` return, and the options of its drain
// and close.
import type { ServerPaths } from '../options/mount-path.js';
import type { ServerMetadata } from '../wire/server-metadata.js';

/**
 * A running server returned by {@link serveAcp} and {@link serveCommand}: Streamable HTTP and the RFD WebSocket on
 * its mount path, the acpremote WebSocket on `<mount>/ws`.
 *
 * @example
 * ```ts
 * const server: RemoteServer = await serveCommand(['node', 'agent.js'], { port: 0 });
 * console.error(`Serving ACP at ${server.endpoint}`);
 * await server.close();
 * ```
 */
export interface RemoteServer {
  /** `ws://HOST:PORT<mount>/ws` with the real port: the acpremote wire (resume, Python `acpremote` clients). */
  readonly url: string;
  /**
   * `http://HOST:PORT<mount>` (`https://` with `tls`) with the real port: ACP's standard transport, Streamable HTTP
   * here and the RFD WebSocket at the same path as `ws(s)://` (what the ACP SDKs' clients connect to).
   */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  readonly paths: ServerPaths;
  /** The metadata document served at GET `<mount>`. */
  readonly metadata: ServerMetadata;
  /**
   * Number of connections, whatever their transport: open ones, plus sessions whose client dropped and that wait for
   * it (they hold their agent, and count against `maxConnections`).
   */
  readonly connectionCount: number;
  /**
   * Sessions whose client dropped and that wait for it (included in {@link connectionCount}): WebSocket sessions kept
   * for a resume, and Streamable HTTP connections none of whose streams has a reader. At most `maxDetachedSessions`.
   */
  readonly detachedCount: number;
  /**
   * True once {@link drain} or {@link close} began: new connections (WebSocket upgrades, Streamable HTTP
   * `initialize`) are refused with 503 and `/readyz` answers 503 (`/healthz` stays 200).
   */
  readonly draining: boolean;
  /**
   * Drains the server: new connections get 503 with `Retry-After` (refusal reason `draining`), `/readyz`
   * answers 503, and open connections go on until they end by themselves or `graceMs` (default 30 s) passes; then
   * the rest are closed with 1001 and their children reaped. A session whose client dropped may still be resumed
   * during the drain (it is this instance's to finish); one whose client does not come back ends when its resume
   * window or the grace period runs out, whichever is first. HTTP routes keep answering until {@link close}, so a
   * final `/metrics` scrape still works. Idempotent: later calls return the first drain's promise.
   */
  drain(options?: DrainOptions): Promise<DrainResult>;
  /**
   * Stops the server: refuses new connections, closes every connection (1001), reaps every child and stops listening.
   * With `graceMs`, drains first ({@link drain}). Idempotent; a `close()` without `graceMs` during a drain ends the
   * drain at once.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Options of {@link RemoteServer.drain}.
 *
 * @example
 * ```ts
 * const options: DrainOptions = { graceMs: 10_000 };
 * ```
 */
export interface DrainOptions {
  /** How long open connections may go on before they are closed with 1001 (default 30 000; 0 closes them at once). */
  graceMs?: number;
}

/**
 * Options of {@link RemoteServer.close}.
 *
 * @example
 * ```ts
 * await server.close({ graceMs: 30_000 }); // drain, then stop
 * ```
 */
export interface CloseOptions {
  /** Drain for up to this long first (see {@link RemoteServer.drain}); without it, connections close at once. */
  graceMs?: number;
}

/**
 * How a drain ended.
 *
 * @example
 * ```ts
 * const { endedWithinGrace } = await server.drain();
 * process.exitCode = endedWithinGrace ? 0 : 143;
 * ```
 */
export interface DrainResult {
  /** Every connection ended by itself within the grace period (the CLIs then exit 0). */
  readonly endedWithinGrace: boolean;
  /** Connections still open when the grace period ran out (or `close()` cut the drain short), closed with 1001. */
  readonly closedConnections: number;
}
