// Carrying the editor's sessions to a new connection: initialize again with the editor's own params, then
// session/resume (or session/load, its replay withheld from the editor) for every session it has open.
import type { FramePort } from '../relay/frame-port.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { parseFrame } from '../wire/json-rpc.js';
import type { RouteKeys } from '../wire/route-keys.js';
import type { EditorSessions, SessionOpening } from './editor-sessions.js';

/** How long the new server may take to answer one of the carry's requests (a long `session/load` included). */
export const CARRY_ANSWER_TIMEOUT_MS = 30_000;

/** The prefix of the ids of the carry's own requests (strings, so they never meet an editor's numeric ids). */
const CARRY_ID_PREFIX = 'acpkit-carry-';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How one session was carried, or why it was not. */
export type CarriedSession =
  | { readonly sessionId: string; readonly carried: true; readonly method: 'session/resume' | 'session/load' }
  | { readonly sessionId: string; readonly carried: false; readonly message: string };

/** The carry could not run on this connection: it ended, or the agent refused or left `initialize` unanswered. */
function carryInterrupted(message: string): AcpRemoteError {
  return new AcpRemoteError(AcpRemoteErrorCode.ConnectionFailed, message);
}

/**
 * One carry of the editor's sessions over a freshly opened connection. The connection's frames go to {@link take}
 * first while it runs: the answers to its own requests and the history a `session/load` replays stay here; every
 * other frame (a `session/update` of a resumed session, a request of the agent) is the editor's.
 *
 * @example
 * ```ts
 * const carry = new SessionCarry(port, sessions);
 * port.receive((frame) => { if (!carry.take(keysOf(frame), frame)) toEditor(frame); });
 * const outcome = await carry.run(); // [{ sessionId, carried: true, method: 'session/resume' }, ...]
 * ```
 */
export class SessionCarry {
  readonly #answers = new Map<string, (response: JsonObject) => void>();
  /** Sessions being loaded: their `session/update`s are the history the editor already shows. */
  readonly #loading = new Set<string>();
  #nextId = 0;
  #replayedUpdates = 0;

  constructor(
    private readonly port: FramePort,
    private readonly sessions: EditorSessions,
    private readonly answerTimeoutMs: number = CARRY_ANSWER_TIMEOUT_MS,
  ) {}

  /** `session/update`s of loaded sessions withheld from the editor. */
  get replayedUpdates(): number {
    return this.#replayedUpdates;
  }

  /** Whether a frame of the new connection is the carry's own (an answer to it, or a replayed update). */
  take(keys: RouteKeys, frame: Buffer): boolean {
    if (keys.kind === 'response') {
      const answer = keys.id === undefined ? undefined : this.#answers.get(keys.id);
      if (answer === undefined) return false;
      this.#answers.delete(keys.id!);
      const parsed = parseFrame(frame.toString('utf8'));
      answer(parsed.ok ? parsed.message : { error: { message: 'the answer is not one JSON object' } });
      return true;
    }
    if (keys.kind === 'notification' && keys.method === 'session/update' && keys.sessionId !== undefined) {
      if (!this.#loading.has(keys.sessionId)) return false;
      this.#replayedUpdates += 1;
      return true;
    }
    return false;
  }

  /**
   * Initializes the new connection as the editor did (and authenticates as it last did), then opens every session
   * the editor has open: with `session/resume` when the agent advertises it, else `session/load` when it advertises
   * that, else not at all. A refused `authenticate` reports every session lost with its reason.
   *
   * @throws {@link AcpRemoteError} `CONNECTION_FAILED` when the connection ends or `initialize` is refused or unanswered.
   */
  async run(): Promise<CarriedSession[]> {
    const initialize = await this.request('initialize', this.sessions.initializeParams ?? {});
    if (!isObject(initialize.result)) throw carryInterrupted(`initialize failed: ${errorText(initialize)}`);
    // The agent's authentication belongs to the connection: what the editor did on the old one, done again.
    const authenticateParams = this.sessions.authenticateParams;
    if (authenticateParams !== undefined) {
      const authenticated = await this.request('authenticate', authenticateParams);
      if (authenticated.error !== undefined)
        return [...this.sessions.open.keys()].map((sessionId) => ({
          sessionId,
          carried: false,
          message: `authenticate failed: ${errorText(authenticated)}`,
        }));
    }
    const capabilities = isObject(initialize.result.agentCapabilities)
      ? initialize.result.agentCapabilities
      : {};
    const sessionCapabilities = isObject(capabilities.sessionCapabilities)
      ? capabilities.sessionCapabilities
      : {};
    const method =
      sessionCapabilities.resume != null
        ? 'session/resume'
        : capabilities.loadSession === true
          ? 'session/load'
          : undefined;
    const open = [...this.sessions.open];
    if (method === undefined) {
      return open.map(([sessionId]) => ({
        sessionId,
        carried: false,
        message: 'the agent offers neither session/resume nor session/load',
      }));
    }
    return Promise.all(open.map(([sessionId, opening]) => this.reopen(sessionId, opening, method)));
  }

  private async reopen(
    sessionId: string,
    opening: SessionOpening,
    method: 'session/resume' | 'session/load',
  ): Promise<CarriedSession> {
    if (method === 'session/load') this.#loading.add(sessionId);
    try {
      const answer = await this.request(method, { sessionId, ...opening }, sessionId);
      if (isObject(answer.result) || answer.result === null) return { sessionId, carried: true, method };
      return { sessionId, carried: false, message: `${method} failed: ${errorText(answer)}` };
    } finally {
      this.#loading.delete(sessionId);
    }
  }

  /** Sends one request of the carry and waits for its answer (the connection ending or a silent agent rejects). */
  private request(method: string, params: JsonObject, sessionId?: string): Promise<JsonObject> {
    this.#nextId += 1;
    const id = `${CARRY_ID_PREFIX}${this.#nextId}`;
    const key = JSON.stringify(id);
    const { port } = this;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#answers.delete(key);
        reject(carryInterrupted(`no answer to ${method} within ${this.answerTimeoutMs} ms`));
      }, this.answerTimeoutMs);
      const ended = (close: { code: number; reason: string }) => {
        clearTimeout(timer);
        reject(
          carryInterrupted(
            `the new connection ended (${close.code}${close.reason ? `: ${close.reason}` : ''})`,
          ),
        );
      };
      void port.closed.then(ended);
      this.#answers.set(key, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      port.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), {
        kind: 'request',
        id: key,
        method,
        sessionId,
      });
    });
  }
}

/** The error of a JSON-RPC answer in words (its message and code). */
function errorText(answer: JsonObject): string {
  const error = isObject(answer.error) ? answer.error : undefined;
  if (error === undefined) return 'no result';
  const message = typeof error.message === 'string' ? error.message : 'error';
  return typeof error.code === 'number' ? `${message} (${error.code})` : message;
}
