// createLangChainAgent: an SDK AgentApp around a LangChain / LangGraph agent. Handlers: initialize (honest
// capabilities), session/new, load (replay from the thread's messages), resume, list, close, delete (only when the
// checkpointer can delete a thread), prompt (a turn on @acpkit/elicitation's sessions.prompt), cancel. Open sessions
// live in the app; the checkpointer keeps them longer.
import { randomUUID } from 'node:crypto';
import { type AcpSessionContext, acpSessions, initializeResponse } from '@acpkit/elicitation';
import { OpenSessions } from '@acpkit/sessions';
import {
  type AgentApp,
  type AgentCapabilities,
  agent,
  type McpServer,
  methods,
  RequestError,
  type StopReason,
} from '@agentclientprotocol/sdk';
import { openSessionMcp } from './mcp/mcp-tools.js';
import { type LangChainAgentOptions, type ResolvedAgentOptions, resolveAgentOptions } from './options.js';
import { LiveSession } from './sessions/live-session.js';
import { replayUpdates } from './sessions/replay.js';
import { type SessionRecord, SessionRecords } from './sessions/session-records.js';
import type { MessageLike } from './turn/message-content.js';
import { titleFromPrompt } from './turn/prompt-content.js';

/** How many sessions one `session/list` page holds. */
const LIST_PAGE_SIZE = 50;

class LangChainAgent {
  readonly #options: ResolvedAgentOptions;
  readonly #acp = acpSessions();
  readonly #sessions: OpenSessions<LiveSession>;
  readonly #records: SessionRecords;
  /** MCP failures of a session, told to the user at the start of its next turn. */
  readonly #notices = new Map<string, string[]>();

  constructor(options: ResolvedAgentOptions) {
    this.#options = options;
    this.#sessions = new OpenSessions(options.maxOpenSessions);
    this.#records = new SessionRecords(options.checkpointer);
  }

  capabilities(): AgentCapabilities {
    const { modelInputs, mcp, perSessionGraphs } = this.#options;
    return {
      loadSession: true,
      promptCapabilities: { image: modelInputs.image, audio: modelInputs.audio, embeddedContext: true },
      // Only a per-session factory can give a graph the editor's MCP tools.
      mcpCapabilities: { http: mcp !== false && perSessionGraphs, sse: mcp !== false && perSessionGraphs },
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        ...(this.#records.canDelete ? { delete: {} } : {}),
      },
    };
  }

  app(): AgentApp {
    const options = this.#options;
    let app = agent({ name: options.name })
      .onConnect((connection) => {
        // The connection is gone: its sessions' turns stop and their MCP servers are closed.
        void connection.closed.then(() => this.#sessions.closeAll()).catch(() => undefined);
      })
      .onRequest(
        methods.agent.initialize,
        this.#acp.initialize(({ params }) => initializeResponse(params, options, this.capabilities())),
      )
      .onNotification(methods.agent.session.cancel, this.#acp.cancel())
      .onRequest(methods.agent.session.new, async ({ params }) => {
        const sessionId = randomUUID();
        await this.#open(sessionId, params.cwd, params.mcpServers);
        await this.#records.save({
          sessionId,
          cwd: params.cwd,
          title: undefined,
          updatedAt: new Date().toISOString(),
        });
        return { sessionId };
      })
      .onRequest(methods.agent.session.load, async (context) => {
        const { params } = context;
        const live = await this.#reopen(params.sessionId, params.cwd, params.mcpServers);
        const state = await live.graph.getState({ configurable: { thread_id: params.sessionId } });
        const messages = (state.values as { messages?: MessageLike[] } | undefined)?.messages ?? [];
        const session = this.#acp.sessionFor(context);
        for (const update of replayUpdates(messages)) await session.update(update);
        return {};
      })
      .onRequest(methods.agent.session.resume, async ({ params }) => {
        await this.#reopen(params.sessionId, params.cwd, params.mcpServers);
        return {};
      })
      .onRequest(methods.agent.session.list, async ({ params }) => {
        const records = await this.#records.list(params.cwd ?? undefined);
        const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
        if (!Number.isSafeInteger(start) || start < 0) {
          throw RequestError.invalidParams(
            { cursor: params.cursor },
            'the cursor is not one this agent gave; list from the start',
          );
        }
        const page = records.slice(start, start + LIST_PAGE_SIZE);
        return {
          sessions: page.map((record) => ({
            sessionId: record.sessionId,
            cwd: record.cwd,
            updatedAt: record.updatedAt,
            ...(record.title === undefined ? {} : { title: record.title }),
          })),
          ...(start + LIST_PAGE_SIZE < records.length ? { nextCursor: String(start + LIST_PAGE_SIZE) } : {}),
        };
      })
      .onRequest(methods.agent.session.close, async ({ params }) => {
        if (this.#sessions.find(params.sessionId) === undefined)
          throw RequestError.sessionNotFound(params.sessionId);
        await this.#sessions.close(params.sessionId);
        return {};
      })
      .onRequest(
        methods.agent.session.prompt,
        this.#acp.prompt(async (session, { params }) => {
          const live = this.#sessions.find(params.sessionId);
          if (live === undefined) throw RequestError.sessionNotFound(params.sessionId);
          return { stopReason: await this.#turn(live, session, params.prompt) };
        }),
      );
    if (this.#records.canDelete) {
      app = app.onRequest(methods.agent.session.delete, async ({ params }) => {
        const live = this.#sessions.find(params.sessionId);
        if (live?.isRunning) {
          throw RequestError.invalidRequest(
            { sessionId: params.sessionId },
            'this session is running a prompt; cancel it before deleting the session',
          );
        }
        if (live === undefined && (await this.#records.get(params.sessionId)) === undefined) {
          throw RequestError.sessionNotFound(params.sessionId);
        }
        await this.#sessions.close(params.sessionId);
        await this.#records.delete(params.sessionId);
        return {};
      });
    }
    return app;
  }

  async #turn(
    live: LiveSession,
    session: AcpSessionContext,
    prompt: Parameters<LiveSession['prompt']>[1],
  ): Promise<StopReason> {
    const notices = this.#notices.get(live.sessionId);
    if (notices !== undefined) {
      this.#notices.delete(live.sessionId);
      for (const notice of notices)
        await session.update({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: `${notice}\n` },
        });
    }
    const record = await this.#records.get(live.sessionId);
    const title = record?.title ?? titleFromPrompt(prompt);
    if (record?.title === undefined && title !== undefined) {
      await session.update({ sessionUpdate: 'session_info_update', title });
    }
    try {
      return await live.prompt(session, prompt);
    } finally {
      const updated: SessionRecord = {
        sessionId: live.sessionId,
        cwd: live.cwd,
        title,
        updatedAt: new Date().toISOString(),
      };
      await this.#records.save(updated).catch(() => undefined);
    }
  }

  /** Opens a session known to the checkpointer (load, resume). */
  async #reopen(
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[] | undefined,
  ): Promise<LiveSession> {
    if (this.#sessions.find(sessionId)?.isRunning) {
      throw RequestError.invalidRequest(
        { sessionId },
        'this session is running a prompt; open it again when the prompt has ended',
      );
    }
    const record = await this.#records.get(sessionId);
    if (record === undefined) {
      const tuple = await this.#options.checkpointer.getTuple({
        configurable: { thread_id: sessionId, checkpoint_ns: '' },
      });
      if (tuple === undefined) throw RequestError.sessionNotFound(sessionId);
    }
    const live = await this.#open(sessionId, cwd, mcpServers);
    await this.#records.save({
      sessionId,
      cwd,
      title: record?.title,
      updatedAt: record?.updatedAt ?? new Date().toISOString(),
    });
    return live;
  }

  async #open(
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[] | undefined,
  ): Promise<LiveSession> {
    await this.#sessions.makeRoom(sessionId);
    const { mcp, perSessionGraphs } = this.#options;
    const servers = mcp !== false && perSessionGraphs ? await openSessionMcp(mcpServers, mcp) : undefined;
    try {
      const context = { sessionId, cwd, mcpTools: servers?.tools ?? [] };
      const { graph, toolSchemas } = await this.#options.graphFor(context);
      const live = new LiveSession(
        this.#options,
        context,
        graph,
        toolSchemas,
        servers ?? { tools: [], failures: [], close: async () => undefined },
      );
      await this.#sessions.add(live);
      if (servers !== undefined && servers.failures.length > 0)
        this.#notices.set(sessionId, [...servers.failures]);
      return live;
    } catch (error) {
      await servers?.close().catch(() => undefined);
      throw error;
    }
  }
}

/**
 * Exposes a LangChain.js agent over ACP: returns an SDK `AgentApp` that streams the graph's tokens
 * (`agent_message_chunk`) and reasoning (`agent_thought_chunk`), shows each tool call (`tool_call` pending, then
 * `tool_call_update` in progress → completed or failed, sub-agents' calls too), turns `humanInTheLoopMiddleware`
 * interrupts into `session/request_permission` (allow once, allow always for the session, edit the arguments as a
 * typed form, reject) and a node's `interrupt({ question, … })` into a typed question, sends DeepAgents' todo list as
 * `plan` updates, keeps sessions in the graph's checkpointer (`session/load` replays them; list, resume, close,
 * delete), and maps the end of a run to an ACP stop reason. `session/cancel` aborts the run through its signal. A
 * graph that fails fails that prompt with a JSON-RPC error carrying its message; the session stays usable. Serve it
 * with `acpremote serve`, run it over stdio with `ndJsonStream`, or test it with `@acpkit/testing`.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) naming the first bad option in its `option` field.
 * @example
 * ```ts
 * import { createLangChainAgent } from '@acpkit/langchain';
 * import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
 * import { z } from 'zod';
 *
 * const deploy = tool(async ({ environment }) => `Deployed to ${environment}.`, {
 *   name: 'deploy',
 *   description: 'Deploy the service to an environment.',
 *   schema: z.object({ environment: z.enum(['staging', 'production']) }),
 * });
 *
 * export const createAgentApp = () =>
 *   createLangChainAgent({
 *     name: 'release-helper',
 *     version: '1.0.0',
 *     agent: createAgent({
 *       model: 'openai:gpt-5-mini',
 *       tools: [deploy],
 *       middleware: [humanInTheLoopMiddleware({ interruptOn: { deploy: true } })],
 *     }),
 *   });
 * ```
 */
export function createLangChainAgent(options: LangChainAgentOptions): AgentApp {
  return new LangChainAgent(resolveAgentOptions(options)).app();
}
