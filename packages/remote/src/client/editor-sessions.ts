// The editor's view of a client connection, read from the frames passing through it: the initialize it sent, the
// sessions it has open (session/new, load and resume answered; close and delete forget them) and what waits for an
// answer either way. What a client needs to carry those sessions to a new connection when its server is lost.
import { parseFrame } from '../wire/json-rpc.js';
import type { RouteKeys } from '../wire/route-keys.js';

/** How a session was opened: what `session/resume` or `session/load` needs to open it again. */
export interface SessionOpening {
  readonly cwd: string;
  readonly mcpServers: readonly unknown[];
  readonly additionalDirectories?: readonly string[];
}

/** A request of the editor waiting for its answer; the methods that open or end sessions keep what they need. */
interface PendingRequest {
  readonly method: string;
  readonly sessionId?: string | undefined;
  readonly opening?: SessionOpening | undefined;
}

/** The methods whose answers change what the editor has open. */
const OPENING_METHODS = new Set(['session/new', 'session/load', 'session/resume']);
const ENDING_METHODS = new Set(['session/close', 'session/delete']);

/** At most this many sessions are remembered (an editor with more has leaked them; the oldest go first). */
export const MAX_TRACKED_SESSIONS = 1_024;
/**
 * At most this many of the server's requests wait for the editor's answer in the tracker (a server flooding requests
 * the editor never answers cannot grow it further; the oldest are forgotten, and only lose their `$/cancel_request`).
 */
export const MAX_TRACKED_SERVER_REQUESTS = 4_096;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The params of a request frame, or undefined when it has none (or is not one JSON object). */
function paramsOf(payload: Buffer | string): JsonObject | undefined {
  const parsed = parseFrame(typeof payload === 'string' ? payload : payload.toString('utf8'));
  return parsed.ok && isObject(parsed.message.params) ? parsed.message.params : undefined;
}

/** What `session/resume` or `session/load` needs of an opening request's params; undefined without a `cwd`. */
function openingOf(params: JsonObject | undefined): SessionOpening | undefined {
  if (params === undefined || typeof params.cwd !== 'string') return undefined;
  const directories = params.additionalDirectories;
  return {
    cwd: params.cwd,
    mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
    ...(Array.isArray(directories) && directories.every((item) => typeof item === 'string')
      ? { additionalDirectories: directories as string[] }
      : {}),
  };
}

/**
 * What the editor has open on a connection, kept from the frames it sends (`sent`) and receives (`received`):
 * `initialize`'s params once the agent answered it (and the last `authenticate` it accepted), each open session and
 * how it was opened, the editor's requests waiting for an answer and the server's requests waiting for the editor's.
 * Only the frames of the methods that open or end a session (and `initialize`, `authenticate`) are parsed; everything
 * else is read from its route keys.
 *
 * @example
 * ```ts
 * const sessions = new EditorSessions();
 * sessions.sent({ kind: 'request', id: '1', method: 'session/new' }, '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}');
 * sessions.received({ kind: 'response', id: '1', resultSessionId: 's' }, '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}');
 * sessions.open.get('s'); // { cwd: '/w', mcpServers: [] }
 * ```
 */
export class EditorSessions {
  /** Sessions the editor has open, by id, in the order they were opened. */
  readonly open = new Map<string, SessionOpening>();
  /** The editor's requests waiting for an answer, by id key (`idKey`). */
  readonly pending = new Map<string, PendingRequest>();
  /** The server's requests waiting for the editor's answer, by id key. */
  readonly serverRequests = new Set<string>();
  #initializeParams: JsonObject | undefined;
  #initializeId: string | undefined;
  #initialized = false;
  /** The params of each `authenticate` the editor sent, by id key, until the agent answers it. */
  readonly #authenticating = new Map<string, JsonObject | undefined>();
  #authenticateParams: JsonObject | undefined;

  /** The params of the editor's `initialize`, once the agent answered it (undefined before). */
  get initializeParams(): JsonObject | undefined {
    return this.#initialized ? this.#initializeParams : undefined;
  }

  /** The params of the editor's last `authenticate` the agent accepted (undefined when none was). */
  get authenticateParams(): JsonObject | undefined {
    return this.#authenticateParams;
  }

  /** A frame the editor sent to the server (`keys`: its route keys). */
  sent(keys: RouteKeys, payload: Buffer | string): void {
    if (keys.id === undefined) return;
    if (keys.kind === 'response') {
      this.serverRequests.delete(keys.id);
      return;
    }
    if (keys.kind !== 'request') return;
    const method = keys.method ?? '';
    if (method === 'initialize') {
      this.#initializeParams = paramsOf(payload);
      this.#initializeId = keys.id;
      this.pending.set(keys.id, { method });
      return;
    }
    if (method === 'authenticate') {
      this.#authenticating.set(keys.id, paramsOf(payload));
      this.pending.set(keys.id, { method });
      return;
    }
    const opening = OPENING_METHODS.has(method) ? openingOf(paramsOf(payload)) : undefined;
    this.pending.set(keys.id, { method, sessionId: keys.sessionId, opening });
  }

  /** A frame the server sent to the editor (`keys`: its route keys; `payload` is parsed only when it matters). */
  received(keys: RouteKeys, payload: Buffer | string): void {
    if (keys.id === undefined) return;
    if (keys.kind === 'request') {
      this.serverRequests.add(keys.id);
      if (this.serverRequests.size > MAX_TRACKED_SERVER_REQUESTS) {
        const oldest = this.serverRequests.values().next().value;
        if (oldest !== undefined) this.serverRequests.delete(oldest);
      }
      return;
    }
    if (keys.kind !== 'response') return;
    const request = this.pending.get(keys.id);
    if (request === undefined) return;
    this.pending.delete(keys.id);
    const { method } = request;
    if (method === 'initialize') {
      if (keys.id === this.#initializeId && succeeded(payload)) this.#initialized = true;
      return;
    }
    if (method === 'authenticate') {
      const params = this.#authenticating.get(keys.id);
      this.#authenticating.delete(keys.id);
      if (succeeded(payload)) this.#authenticateParams = params ?? {};
      return;
    }
    if (OPENING_METHODS.has(method)) {
      const sessionId = method === 'session/new' ? keys.resultSessionId : request.sessionId;
      if (sessionId !== undefined && request.opening !== undefined && succeeded(payload))
        this.remember(sessionId, request.opening);
      return;
    }
    if (ENDING_METHODS.has(method) && request.sessionId !== undefined && succeeded(payload))
      this.open.delete(request.sessionId);
  }

  /**
   * The connection under the editor was lost: what waited for an answer is handed back (the editor's requests, to
   * answer with an error; the server's, whose late answers no server is waiting for) and forgotten.
   */
  cut(): { readonly editorRequests: string[]; readonly serverRequests: string[] } {
    const editorRequests = [...this.pending.keys()];
    const serverRequests = [...this.serverRequests];
    this.#authenticating.clear();
    this.pending.clear();
    this.serverRequests.clear();
    return { editorRequests, serverRequests };
  }

  /** Forgets a session that could not be carried over. */
  forget(sessionId: string): void {
    this.open.delete(sessionId);
  }

  private remember(sessionId: string, opening: SessionOpening): void {
    this.open.delete(sessionId);
    this.open.set(sessionId, opening);
    if (this.open.size > MAX_TRACKED_SESSIONS) {
      const oldest = this.open.keys().next().value;
      if (oldest !== undefined) this.open.delete(oldest);
    }
  }
}

/** Whether a response frame carries a `result` (not an `error`). */
function succeeded(payload: Buffer | string): boolean {
  const parsed = parseFrame(typeof payload === 'string' ? payload : payload.toString('utf8'));
  return parsed.ok && 'result' in parsed.message && !('error' in parsed.message);
}
