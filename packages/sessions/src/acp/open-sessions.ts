// The sessions an agent app keeps open in memory, at most `maxOpenSessions`: opening one more closes the least
// recently used idle one (it stays in its store or checkpointer, so session/load or session/resume brings it back).
// Both adapters keep their live sessions here; keyed by session id (ids are random UUIDs).
import { RequestError } from '@agentclientprotocol/sdk';

/** The default of an adapter's `maxOpenSessions`. */
export const DEFAULT_MAX_OPEN_SESSIONS = 100;

/**
 * What {@link OpenSessions} keeps: a live session that says whether a prompt is running in it and closes what it holds
 * open (MCP servers, their processes).
 *
 * @example
 * ```ts
 * import type { OpenSession } from '@acpkit/sessions';
 *
 * const session: OpenSession = { sessionId: 's-1', isRunning: false, close: async () => undefined };
 * ```
 */
export interface OpenSession {
  readonly sessionId: string;
  /** A prompt is running in it: it is never closed to make room. */
  readonly isRunning: boolean;
  /** Frees what it holds open; called once, when it leaves the open sessions. */
  close(): Promise<void>;
}

/**
 * The live sessions of one agent app, at most `maxOpenSessions`, least recently used first. Making room for one more
 * closes the least recently used idle session; when every session at the limit is running a prompt, the request
 * that wanted one more fails with -32600 (nothing is closed under a running prompt). The memory an app holds for
 * its sessions is bounded by `maxOpenSessions` times what one live session holds.
 *
 * @example
 * ```ts
 * import { OpenSessions, type OpenSession } from '@acpkit/sessions';
 *
 * const open = new OpenSessions<OpenSession>(100);
 * await open.makeRoom('s-1');
 * await open.add({ sessionId: 's-1', isRunning: false, close: async () => undefined });
 * open.find('s-1'); // the session, now the most recently used
 * ```
 */
export class OpenSessions<Session extends OpenSession> {
  readonly #max: number;
  // A Map keeps insertion order: the first entry is the least recently used.
  readonly #sessions = new Map<string, Session>();

  /** @param maxOpenSessions How many sessions may be open at once (a positive integer, checked by the caller). */
  constructor(maxOpenSessions: number) {
    this.#max = maxOpenSessions;
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The open session `sessionId` (now the most recently used one), if any. */
  find(sessionId: string): Session | undefined {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Makes room to open `sessionId`: closes its open copy (the new one replaces it) and, at the limit, the least
   * recently used idle session.
   *
   * @throws `RequestError` -32600 when every session at the limit is running a prompt.
   */
  async makeRoom(sessionId: string): Promise<void> {
    await this.close(sessionId);
    if (this.#sessions.size < this.#max) return;
    const idle = [...this.#sessions.values()].find((session) => !session.isRunning);
    if (idle === undefined) {
      throw RequestError.invalidRequest(
        { maxOpenSessions: this.#max },
        `all ${this.#sessions.size} sessions this agent keeps open (maxOpenSessions) are running a prompt; ` +
          'wait for one to end',
      );
    }
    await this.close(idle.sessionId);
  }

  /** Keeps `session` open (after {@link OpenSessions.makeRoom}); a copy of it opened meanwhile is closed. */
  async add(session: Session): Promise<void> {
    const replaced = this.#sessions.get(session.sessionId);
    this.#sessions.delete(session.sessionId);
    this.#sessions.set(session.sessionId, session);
    if (replaced !== undefined && replaced !== session) await replaced.close();
  }

  /** Closes and forgets the open session `sessionId`; whether it was open. */
  async close(sessionId: string): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return false;
    this.#sessions.delete(sessionId);
    await session.close();
    return true;
  }

  /** Closes every open session (the connection ended): what they hold open ends with them. */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
