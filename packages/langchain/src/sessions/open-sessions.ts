// The sessions an agent app keeps open in memory, at most `maxOpenSessions`: opening one more closes the least
// recently used idle one (its thread stays in the checkpointer, so session/load or session/resume brings it back).
import { RequestError } from '@agentclientprotocol/sdk';
import type { LiveSession } from './live-session.js';

/** The live sessions of one agent app, least recently used first (a Map keeps insertion order). */
export class OpenSessions {
  readonly #max: number;
  readonly #sessions = new Map<string, LiveSession>();

  constructor(maxOpenSessions: number) {
    this.#max = maxOpenSessions;
  }

  find(sessionId: string): LiveSession | undefined {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Checks there is room for one more session, closing the least recently used idle one if needed.
   *
   * @throws `RequestError` -32600 when every session at the limit is running a prompt.
   */
  async makeRoom(): Promise<void> {
    if (this.#sessions.size < this.#max) return;
    const idle = [...this.#sessions.values()].find((session) => !session.isRunning);
    if (idle === undefined) {
      throw RequestError.invalidRequest(
        { maxOpenSessions: this.#max },
        `all ${this.#sessions.size} sessions this agent keeps open (maxOpenSessions) are running a prompt; wait for one to end`,
      );
    }
    await this.close(idle.sessionId);
  }

  /** Adds `session`, closing the open session of the same id first. */
  async add(session: LiveSession): Promise<void> {
    await this.close(session.sessionId);
    this.#sessions.set(session.sessionId, session);
  }

  /** Closes and forgets the session (nothing when it is not open). */
  async close(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.delete(sessionId);
    await session.close();
  }

  /** Closes every session (the connection closed). */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.keys()];
    for (const sessionId of sessions) await this.close(sessionId);
  }
}
