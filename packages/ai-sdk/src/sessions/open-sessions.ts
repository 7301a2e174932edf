// The sessions an agent app keeps open in memory, at most `maxOpenSessions`: opening one more closes the least
// recently used idle one (it stays in the session store, so session/load brings it back). Keyed by session id: ids
// are random UUIDs, and each turn talks to the client of the request that started it.
import { RequestError } from '@agentclientprotocol/sdk';
import type { ResolvedAgentOptions } from '../options.js';
import type { StoredAiSdkSession } from '../session-store.js';
import { LiveSession } from './live-session.js';

/** The live sessions of one agent app, least recently used first (a Map keeps insertion order). */
export class OpenSessions {
  readonly #options: ResolvedAgentOptions;
  readonly #sessions = new Map<string, LiveSession>();

  constructor(options: ResolvedAgentOptions) {
    this.#options = options;
  }

  /** The open session `sessionId` (now the most recently used one), if any. */
  find(sessionId: string): LiveSession | undefined {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Closes the open session `sessionId` (its turns are cancelled by the caller) and what it holds open (its MCP
   * servers); whether it was open.
   */
  close(sessionId: string): boolean {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return false;
    this.#sessions.delete(sessionId);
    void session.close();
    return true;
  }

  /**
   * Opens `stored`, replacing the open session of that id. Past the limit the least recently used idle session is
   * closed.
   *
   * @throws `RequestError` -32600 when every session at the limit is running a prompt.
   */
  open(stored: StoredAiSdkSession): LiveSession {
    const replaced = this.#sessions.get(stored.sessionId);
    this.#sessions.delete(stored.sessionId);
    if (replaced !== undefined) void replaced.close();
    if (this.#sessions.size >= this.#options.maxOpenSessions) {
      const idle = [...this.#sessions.values()].find((session) => !session.isRunning);
      if (idle === undefined) {
        throw RequestError.invalidRequest(
          { maxOpenSessions: this.#options.maxOpenSessions },
          `all ${this.#sessions.size} sessions this agent keeps open (maxOpenSessions) are running a prompt; ` +
            'wait for one to end',
        );
      }
      this.#sessions.delete(idle.sessionId);
      void idle.close();
    }
    const session = new LiveSession(this.#options, stored);
    this.#sessions.set(stored.sessionId, session);
    return session;
  }

  /** Closes every open session (the connection ended): what they hold open (MCP servers) ends with them. */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
