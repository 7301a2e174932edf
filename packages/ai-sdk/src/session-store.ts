// Where sessions are kept between connections: the store interface `session/load` reads from, and the in-memory
// store an agent gets by default (bounded: least recently used sessions are dropped first).
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import { invalidOption } from './errors.js';
import type { AiSdkSessionState } from './session-state/session-state.js';

/**
 * One session as a store keeps it: what the model sees next turn (`messages`), what the client is shown again on
 * `session/load` (`transcript`: the session's `session/update`s, consecutive message chunks joined), and the tools
 * the user allowed for the whole session. Messages may hold binary data (`Uint8Array` image parts); a store that
 * serialises must handle it.
 *
 * @example
 * ```ts
 * import type { StoredAiSdkSession } from '@acpkit/ai-sdk';
 *
 * const empty: StoredAiSdkSession = {
 *   sessionId: 'a1',
 *   cwd: '/work',
 *   messages: [],
 *   transcript: [],
 *   alwaysAllowedTools: [],
 *   updatedAt: new Date().toISOString(),
 * };
 * ```
 */
export interface StoredAiSdkSession {
  readonly sessionId: string;
  /** The working directory the client gave in `session/new` (or the last `session/load`). */
  readonly cwd: string;
  /** The conversation as AI SDK model messages (the system prompt is not part of it). */
  readonly messages: readonly ModelMessage[];
  /** The updates to replay on `session/load`, in order. */
  readonly transcript: readonly SessionUpdate[];
  /** Tools the user answered "allow always" for. */
  readonly alwaysAllowedTools: readonly string[];
  /** When the session last changed (ISO 8601). */
  readonly updatedAt: string;
  /** The session's mode, config values (the model among them), plan and cost; absent in older records. */
  readonly state?: AiSdkSessionState | undefined;
}

/**
 * Keeps sessions for `session/load`. `get` returns `undefined` for a session it does not hold; both may be async.
 * The agent calls `set` after `session/new` and after every turn, with a fresh object each time.
 *
 * @example
 * ```ts
 * import type { AiSdkSessionStore, StoredAiSdkSession } from '@acpkit/ai-sdk';
 * import { readFile, writeFile } from 'node:fs/promises';
 *
 * // A store in one JSON file per session (messages without binary parts).
 * const fileStore: AiSdkSessionStore = {
 *   async get(sessionId) {
 *     try {
 *       return JSON.parse(await readFile(`/var/sessions/${sessionId}.json`, 'utf8')) as StoredAiSdkSession;
 *     } catch {
 *       return undefined;
 *     }
 *   },
 *   async set(session) {
 *     await writeFile(`/var/sessions/${session.sessionId}.json`, JSON.stringify(session));
 *   },
 * };
 * ```
 */
export interface AiSdkSessionStore {
  get(sessionId: string): StoredAiSdkSession | undefined | Promise<StoredAiSdkSession | undefined>;
  set(session: StoredAiSdkSession): void | Promise<void>;
}

/**
 * Options of {@link InMemorySessionStore}.
 *
 * @example
 * ```ts
 * import { inMemorySessionStore } from '@acpkit/ai-sdk';
 *
 * const store = inMemorySessionStore({ maxSessions: 50 });
 * ```
 */
export interface InMemorySessionStoreOptions {
  /** How many sessions the store holds; the least recently used one is dropped past it. Default 1 000. */
  readonly maxSessions?: number | undefined;
}

/** The default of {@link InMemorySessionStoreOptions.maxSessions}. */
export const DEFAULT_MAX_STORED_SESSIONS = 1_000;

/**
 * A session store in this process's memory, bounded to `maxSessions` (least recently used dropped first). The
 * default of `createAiSdkAgent`; sessions survive their connection but not the process.
 *
 * @example
 * ```ts
 * import { createAiSdkAgent, InMemorySessionStore } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * // One store for every connection the server accepts, so any of them can load any session.
 * const sessionStore = new InMemorySessionStore({ maxSessions: 200 });
 * export const createAgent = () => createAiSdkAgent({ name: 'helper', version: '1.0.0', model, sessionStore });
 * ```
 */
export class InMemorySessionStore implements AiSdkSessionStore {
  readonly #sessions = new Map<string, StoredAiSdkSession>();
  readonly #maxSessions: number;

  constructor(options: InMemorySessionStoreOptions = {}) {
    const maxSessions = options.maxSessions ?? DEFAULT_MAX_STORED_SESSIONS;
    if (typeof maxSessions !== 'number' || !Number.isSafeInteger(maxSessions) || maxSessions < 1) {
      throw invalidOption('maxSessions', 'a positive integer', maxSessions);
    }
    this.#maxSessions = maxSessions;
  }

  /** How many sessions the store holds now. */
  get size(): number {
    return this.#sessions.size;
  }

  get(sessionId: string): StoredAiSdkSession | undefined {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) this.#touch(sessionId, session);
    return session;
  }

  set(session: StoredAiSdkSession): void {
    this.#touch(session.sessionId, session);
    // A Map iterates in insertion order, so its first key is the least recently used one.
    while (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value as string;
      this.#sessions.delete(oldest);
    }
  }

  #touch(sessionId: string, session: StoredAiSdkSession): void {
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, session);
  }
}

/**
 * Creates an {@link InMemorySessionStore}.
 *
 * @example
 * ```ts
 * import { inMemorySessionStore } from '@acpkit/ai-sdk';
 *
 * export const sessionStore = inMemorySessionStore();
 * ```
 */
export function inMemorySessionStore(options: InMemorySessionStoreOptions = {}): InMemorySessionStore {
  return new InMemorySessionStore(options);
}
