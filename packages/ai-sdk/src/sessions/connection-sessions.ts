// The sessions open on each connection, at most `maxSessionsPerConnection` of them: opening one more closes the
// least recently used idle one (it stays in the session store, so session/load brings it back). State is kept per
// SDK connection and goes with it.
import type { AcpSessions, ElicitationClient } from '@acpkit/elicitation';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ResolvedAgentOptions } from '../options.js';
import type { StoredAiSdkSession } from '../session-store.js';
import { LiveSession } from './live-session.js';

/**
 * The session id under which each connection's sessions are anchored in `AcpSessions` (never a real session: ours
 * are UUIDs). Why: `AcpSessions.sessionFor` is the one place that knows an SDK connection (SDK 2.4 makes a new
 * handler context per request); the context it returns for this id is a stable per-connection key.
 */
const CONNECTION_ANCHOR = 'acpkit.ai-sdk/connection';

/** The live sessions of every connection of one agent app. */
export class ConnectionSessions {
  readonly #acp: AcpSessions;
  readonly #options: ResolvedAgentOptions;
  /** Per connection: its sessions, least recently used first (a Map keeps insertion order). */
  readonly #byConnection = new WeakMap<object, Map<string, LiveSession>>();

  constructor(acp: AcpSessions, options: ResolvedAgentOptions) {
    this.#acp = acp;
    this.#options = options;
  }

  /** The session `sessionId` if it is open on the connection of `client` (now the most recently used one). */
  find(client: ElicitationClient, sessionId: string): LiveSession | undefined {
    const sessions = this.#sessionsOf(client);
    const session = sessions.get(sessionId);
    if (session !== undefined) {
      sessions.delete(sessionId);
      sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Opens `stored` on the connection of `client`, replacing the session of that id if it is open there. Past the
   * limit the least recently used idle session is closed.
   *
   * @throws `RequestError` -32600 when every session at the limit is running a prompt.
   */
  open(client: ElicitationClient, stored: StoredAiSdkSession): LiveSession {
    const sessions = this.#sessionsOf(client);
    sessions.delete(stored.sessionId);
    if (sessions.size >= this.#options.maxSessionsPerConnection) {
      const idle = [...sessions.values()].find((session) => !session.isRunning);
      if (idle === undefined) {
        throw RequestError.invalidRequest(
          { maxSessionsPerConnection: this.#options.maxSessionsPerConnection },
          `all ${sessions.size} sessions this connection may hold (maxSessionsPerConnection) are running a prompt; ` +
            'wait for one to end',
        );
      }
      sessions.delete(idle.sessionId);
      this.#acp.forget({ params: { sessionId: idle.sessionId }, client });
    }
    const acpSession = this.#acp.sessionFor({ params: { sessionId: stored.sessionId }, client });
    const session = new LiveSession(this.#options, acpSession, stored);
    sessions.set(stored.sessionId, session);
    return session;
  }

  #sessionsOf(client: ElicitationClient): Map<string, LiveSession> {
    const anchor = this.#acp.sessionFor({ params: { sessionId: CONNECTION_ANCHOR }, client });
    let sessions = this.#byConnection.get(anchor);
    if (sessions === undefined) {
      sessions = new Map();
      this.#byConnection.set(anchor, sessions);
    }
    return sessions;
  }
}
