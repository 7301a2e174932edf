// The session lifecycle of one AI SDK agent app over its store: what it advertises, session/new's first save, the
// save after every turn (only what the turn added, at the version this app last saw; a stale write closes the
// session here so it is reloaded, never merged), session_info_update, and the list/load/resume/close/delete
// handlers (@acpkit/sessions' SessionLifecycle, with this adapter's open and replay).
import type { AcpSessionContext, AcpSessions } from '@acpkit/elicitation';
import {
  defaultSessionTitle,
  type OpenSessions,
  type SessionLifecycle,
  SessionStoreError,
  SessionStoreErrorCode,
  sessionLifecycle,
  sessionStoreRequestError,
} from '@acpkit/sessions';
import {
  type AgentApp,
  type AgentCapabilities,
  type AgentContext,
  type ContentBlock,
  type McpServer,
  methods,
  RequestError,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { ResolvedAgentOptions } from '../options.js';
import { announceCommandsAfterResponse, sessionSetupResponse } from '../session-state/session-controls.js';
import { readStoredSession, type StoredAiSdkSession } from '../session-store.js';
import { LiveSession } from './live-session.js';

interface SessionRequest {
  readonly params: {
    readonly sessionId: string;
    readonly cwd: string;
    readonly mcpServers?: readonly McpServer[] | undefined;
  };
  readonly client: AgentContext;
  readonly signal?: AbortSignal;
}

/** The text of a prompt's text blocks, for its title. */
function promptText(prompt: readonly ContentBlock[]): string {
  return prompt
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** The lifecycle of one app's sessions. */
export class AgentSessions {
  readonly #options: ResolvedAgentOptions;
  readonly #acp: AcpSessions;
  readonly #open: OpenSessions<LiveSession>;
  readonly #lifecycle: SessionLifecycle | undefined;

  constructor(options: ResolvedAgentOptions, acp: AcpSessions, open: OpenSessions<LiveSession>) {
    this.#options = options;
    this.#acp = acp;
    this.#open = open;
    this.#lifecycle = options.sessionStore === null ? undefined : sessionLifecycle(options.sessionStore);
  }

  /** `loadSession` and `sessionCapabilities` exactly as handled: without a store, only `session/close`. */
  capabilities(): Pick<AgentCapabilities, 'loadSession' | 'sessionCapabilities'> {
    return this.#lifecycle?.capabilities() ?? { loadSession: false, sessionCapabilities: { close: {} } };
  }

  /** `session/new`: a new open session, saved at once so any server sharing the store can load it. */
  async create(sessionId: string, cwd: string): Promise<LiveSession> {
    const live = await this.#openLive(LiveSession.empty(sessionId, cwd));
    try {
      await this.#save(live);
    } catch (error) {
      await this.#open.close(sessionId);
      throw sessionStoreRequestError(error);
    }
    return live;
  }

  /**
   * What a session just opened (new, loaded or resumed) gets of the editor's world: the MCP servers of the request
   * connected, its modes and config options for the response, and its commands announced after that response.
   */
  setUp(live: LiveSession, context: SessionRequest) {
    live.attachMcpServers(context.params.mcpServers);
    announceCommandsAfterResponse(this.#options, this.#acp.sessionFor(context as never));
    return sessionSetupResponse(this.#options, live);
  }

  /** Titles a session from its first prompt (the author's `sessionTitle`, or the first line). */
  nameFromFirstPrompt(live: LiveSession, prompt: readonly ContentBlock[]): void {
    if (live.history.length > 0 || live.title !== null) return;
    const text = promptText(prompt);
    const hook = this.#options.sessionTitle;
    // An author's title is kept whole, on one line (stores refuse NUL; a list shows one line).
    const title = hook === undefined ? defaultSessionTitle(text) : hook({ sessionId: live.sessionId, text });
    live.nameIfUntitled(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
      typeof title === 'string' ? title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim() || null : null,
    );
  }

  /**
   * Saves what a turn added and tells the client the session's title and `updatedAt`. A save the store refuses
   * fails the prompt with a JSON-RPC error naming the stop reason the turn reached and the store's code.
   */
  async afterTurn(live: LiveSession, session: AcpSessionContext, stopReason: StopReason): Promise<void> {
    if (this.#lifecycle === undefined) return;
    let saved: Awaited<ReturnType<AgentSessions['save']>>;
    try {
      saved = await this.save(live);
    } catch (error) {
      const wire = sessionStoreRequestError(error);
      if (!(wire instanceof RequestError)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new RequestError(wire.code, `the turn ended (${stopReason}) but was not saved: ${reason}`, {
        ...(wire.data as object),
        stopReason,
      });
    }
    if (saved !== undefined) await session.update(this.#lifecycle.infoUpdate(live.title, saved));
  }

  /** Saves `live` (only what changed since its last save); a stale write closes it here. */
  async save(live: LiveSession) {
    try {
      return await this.#save(live);
    } catch (error) {
      // This app's copy is behind the store: drop it, so the next request loads what is stored.
      if (SessionStoreError.isInstance(error) && error.code === SessionStoreErrorCode.StaleWrite) {
        await this.#open.close(live.sessionId);
      }
      throw error;
    }
  }

  async #save(live: LiveSession) {
    const store = this.#options.sessionStore;
    if (store === null) return undefined;
    const save = live.pendingSave();
    const saved = await store.save(save);
    live.markSaved(save, saved);
    return saved;
  }

  /** Registers list, load, resume (with a store), close and delete (with a store) on `app`. */
  register(app: AgentApp): AgentApp {
    const lifecycle = this.#lifecycle;
    let registered = app.onRequest(
      methods.agent.session.close,
      // Close cancels the session's running turn on this connection and frees it; a stored session stays stored.
      async (context) => {
        const closing = this.#open.close(context.params.sessionId);
        this.#acp.forget(context);
        const wasOpen = await closing;
        if (lifecycle === undefined) {
          if (!wasOpen) throw RequestError.sessionNotFound(context.params.sessionId);
          return {};
        }
        return lifecycle.close(() => wasOpen)(context);
      },
    );
    if (lifecycle === undefined) return registered;
    registered = registered
      .onRequest(
        methods.agent.session.load,
        lifecycle.load(async (stored, context) => {
          const live = await this.#reopen(readStoredSession(stored), context);
          const session = this.#acp.sessionFor(context);
          await live.replay(session);
          await session.update(lifecycle.infoUpdate(live.title, stored));
          return this.setUp(live, context);
        }),
      )
      .onRequest(
        methods.agent.session.resume,
        lifecycle.resume(async (stored, context) =>
          this.setUp(await this.#reopen(readStoredSession(stored), context), context),
        ),
      );
    if (this.#options.sessionStore?.list !== undefined) {
      registered = registered.onRequest(methods.agent.session.list, lifecycle.list());
    }
    if (this.#options.sessionStore?.delete !== undefined) {
      registered = registered.onRequest(
        methods.agent.session.delete,
        lifecycle.delete(async (sessionId, context) => {
          const closing = this.#open.close(sessionId);
          this.#acp.forget(context);
          await closing;
        }),
      );
    }
    return registered;
  }

  /** Opens a stored session in this app (replacing an idle open copy), in the request's cwd. */
  async #reopen(stored: ReturnType<typeof readStoredSession>, context: SessionRequest): Promise<LiveSession> {
    if (this.#open.find(stored.sessionId)?.isRunning) {
      throw RequestError.invalidRequest(
        { sessionId: stored.sessionId },
        'this session is running a prompt; load or resume it when the prompt has ended',
      );
    }
    return this.#openLive({ ...stored, cwd: context.params.cwd });
  }

  /** Opens `stored` as a live session, replacing an open copy; past the limit the least recently used idle one closes. */
  async #openLive(stored: StoredAiSdkSession): Promise<LiveSession> {
    await this.#open.makeRoom(stored.sessionId);
    const live = new LiveSession(this.#options, stored);
    await this.#open.add(live);
    return live;
  }
}
