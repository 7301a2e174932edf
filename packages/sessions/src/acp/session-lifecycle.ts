// ACP's session lifecycle over any SessionStore, for agents written on the SDK's builder: the capabilities to
// advertise, and handlers for session/list, session/load, session/resume, session/close and session/delete. The
// agent keeps what it opens (its in-memory sessions); these handlers read and delete what is stored and turn a
// store's refusal into a JSON-RPC error that says why.
import {
  type AgentCapabilities,
  type ListSessionsResponse,
  type LoadSessionResponse,
  RequestError,
  type ResumeSessionResponse,
  type SessionInfo,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { SessionSaved, SessionStore, SessionSummary, StoredSession } from '../contract.js';
import { sessionStoreRequestError } from './wire-errors.js';

/**
 * The part of a `session/list` handler context the list handler reads.
 *
 * @example
 * ```ts
 * import type { ListContextLike } from '@acpkit/sessions';
 *
 * const cwdOf = (context: ListContextLike) => context.params.cwd;
 * ```
 */
export interface ListContextLike {
  readonly params: { readonly cwd?: string | null | undefined; readonly cursor?: string | null | undefined };
}

/**
 * The part of a session-scoped request context (`session/load`, `resume`, `close`, `delete`) the handlers read.
 *
 * @example
 * ```ts
 * import type { SessionRequestLike } from '@acpkit/sessions';
 *
 * const idOf = (context: SessionRequestLike) => context.params.sessionId;
 * ```
 */
export interface SessionRequestLike {
  readonly params: { readonly sessionId: string };
}

/** What a load callback returns: the response's fields, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets an open callback without a return type-check.
type LoadResult = LoadSessionResponse | undefined | void;

/** What a resume callback returns: the response's fields, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets an open callback without a return type-check.
type ResumeResult = ResumeSessionResponse | undefined | void;

/** Runs `task`, turning a store's refusal into its JSON-RPC error. */
async function onWire<Result>(task: () => Promise<Result>): Promise<Result> {
  try {
    return await task();
  } catch (error) {
    throw sessionStoreRequestError(error);
  }
}

/**
 * Session list/load/resume/close/delete handlers over one store. Register the ones you use and spread
 * {@link SessionLifecycle.capabilities} into `agentCapabilities`, so what is advertised is exactly what is handled.
 *
 * @example
 * ```ts
 * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
 * import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
 *
 * const sessions = sessionLifecycle(memorySessionStore());
 * const open = new Map<string, string[]>(); // this agent keeps each session's notes
 * export const app = agent({ name: 'notes' })
 *   .onRequest(methods.agent.initialize, () => ({
 *     protocolVersion: PROTOCOL_VERSION,
 *     agentCapabilities: { ...sessions.capabilities() },
 *   }))
 *   .onRequest(methods.agent.session.list, sessions.list())
 *   .onRequest(
 *     methods.agent.session.load,
 *     sessions.load(async (stored, { client }) => {
 *       open.set(stored.sessionId, stored.entries as string[]);
 *       for (const note of stored.entries as string[]) {
 *         await client.notify(methods.client.session.update, {
 *           sessionId: stored.sessionId,
 *           update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: note } },
 *         });
 *       }
 *     }),
 *   )
 *   .onRequest(methods.agent.session.resume, sessions.resume((stored) => void open.set(stored.sessionId, [])))
 *   .onRequest(methods.agent.session.close, sessions.close((sessionId) => open.delete(sessionId)))
 *   .onRequest(methods.agent.session.delete, sessions.delete((sessionId) => void open.delete(sessionId)));
 * ```
 */
export class SessionLifecycle<Entry = unknown> {
  readonly store: SessionStore<Entry>;

  constructor(store: SessionStore<Entry>) {
    this.store = store;
  }

  /**
   * `loadSession` and `sessionCapabilities` as this store supports them: load, resume and close always; list and
   * delete when the store has `list` / `delete`.
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   *
   * sessionLifecycle(memorySessionStore()).capabilities();
   * // { loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} } }
   * ```
   */
  capabilities(): Pick<AgentCapabilities, 'loadSession' | 'sessionCapabilities'> {
    return {
      loadSession: true,
      sessionCapabilities: {
        ...(this.store.list === undefined ? {} : { list: {} }),
        resume: {},
        close: {},
        ...(this.store.delete === undefined ? {} : { delete: {} }),
      },
    };
  }

  /**
   * A `session/list` handler: the store's sessions of `params.cwd` (all when absent), newest first, one page per
   * request, `nextCursor` while more follow. A cursor the store did not hand out is refused with -32602.
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * agent().onRequest(methods.agent.session.list, sessionLifecycle(memorySessionStore()).list());
   * ```
   */
  list<Context extends ListContextLike>(): (context: Context) => Promise<ListSessionsResponse> {
    return ({ params }) =>
      onWire(async () => {
        const list = this.store.list;
        if (list === undefined) throw RequestError.methodNotFound('session/list');
        const page = await list.call(this.store, { cwd: params.cwd, cursor: params.cursor });
        return {
          sessions: page.sessions.map(sessionInfoOf),
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
        };
      });
  }

  /**
   * A `session/load` handler: reads the stored session (-32002 when there is none) and gives it to `open`, which
   * replays it to the client (`session/update`s, before the response, as ACP requires) and keeps it open; it may
   * return the response's fields (modes, config options).
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = sessionLifecycle(memorySessionStore());
   * agent().onRequest(methods.agent.session.load, sessions.load(async (stored) => console.error(stored.version)));
   * ```
   */
  load<Context extends SessionRequestLike>(
    open: (stored: StoredSession<Entry>, context: Context) => LoadResult | Promise<LoadResult>,
  ): (context: Context) => Promise<LoadSessionResponse> {
    return (context) =>
      onWire(async () => (await open(await this.#stored(context.params.sessionId), context)) ?? {});
  }

  /**
   * A `session/resume` handler: like {@link SessionLifecycle.load} without replay; `open` may return the resume
   * response's fields (modes, config options).
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = sessionLifecycle(memorySessionStore());
   * agent().onRequest(methods.agent.session.resume, sessions.resume(() => undefined));
   * ```
   */
  resume<Context extends SessionRequestLike>(
    open: (stored: StoredSession<Entry>, context: Context) => ResumeResult | Promise<ResumeResult>,
  ): (context: Context) => Promise<ResumeSessionResponse> {
    return (context) =>
      onWire(async () => (await open(await this.#stored(context.params.sessionId), context)) ?? {});
  }

  /**
   * A `session/close` handler: `close` cancels the session's work and frees what the agent holds for it, and says
   * whether it had the session open. The session stays stored. A session neither open nor stored is -32002.
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const open = new Set<string>();
   * const sessions = sessionLifecycle(memorySessionStore());
   * agent().onRequest(methods.agent.session.close, sessions.close((sessionId) => open.delete(sessionId)));
   * ```
   */
  close<Context extends SessionRequestLike>(
    close: (sessionId: string, context: Context) => boolean | Promise<boolean>,
  ): (context: Context) => Promise<Record<string, never>> {
    return (context) =>
      onWire(async () => {
        const { sessionId } = context.params;
        if (!(await close(sessionId, context)) && (await this.store.get(sessionId)) === undefined) {
          throw RequestError.sessionNotFound(sessionId);
        }
        return {};
      });
  }

  /**
   * A `session/delete` handler: `forget` closes the session in the agent first (if open), then the store deletes
   * it. A session the store does not hold is -32002.
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = sessionLifecycle(memorySessionStore());
   * agent().onRequest(methods.agent.session.delete, sessions.delete());
   * ```
   */
  delete<Context extends SessionRequestLike>(
    forget?: (sessionId: string, context: Context) => void | Promise<void>,
  ): (context: Context) => Promise<Record<string, never>> {
    return (context) =>
      onWire(async () => {
        const { sessionId } = context.params;
        const remove = this.store.delete;
        if (remove === undefined) throw RequestError.methodNotFound('session/delete');
        await forget?.(sessionId, context);
        if (!(await remove.call(this.store, sessionId))) throw RequestError.sessionNotFound(sessionId);
        return {};
      });
  }

  /**
   * The `session_info_update` to send after a save: the session's title and `updatedAt`.
   *
   * @example
   * ```ts
   * import { memorySessionStore, sessionLifecycle } from '@acpkit/sessions';
   *
   * const sessions = sessionLifecycle(memorySessionStore());
   * sessions.infoUpdate('Fix the build', { version: 1, updatedAt: new Date().toISOString(), bytes: 10 });
   * ```
   */
  infoUpdate(title: string | null, saved: SessionSaved): SessionUpdate {
    return { sessionUpdate: 'session_info_update', title, updatedAt: saved.updatedAt };
  }

  async #stored(sessionId: string): Promise<StoredSession<Entry>> {
    const stored = await this.store.get(sessionId);
    if (stored === undefined) throw RequestError.sessionNotFound(sessionId);
    return stored;
  }
}

/** A stored session as `session/list` shows it. */
export function sessionInfoOf(summary: SessionSummary): SessionInfo {
  return {
    sessionId: summary.sessionId,
    cwd: summary.cwd,
    title: summary.title,
    updatedAt: summary.updatedAt,
  };
}

/**
 * Creates a {@link SessionLifecycle} over `store`.
 *
 * @example
 * ```ts
 * import { sessionLifecycle } from '@acpkit/sessions';
 * import { sqliteSessionStore } from '@acpkit/sessions/sqlite';
 *
 * export const sessions = sessionLifecycle(sqliteSessionStore({ path: './sessions.db' }));
 * ```
 */
export function sessionLifecycle<Entry = unknown>(store: SessionStore<Entry>): SessionLifecycle<Entry> {
  return new SessionLifecycle(store);
}
