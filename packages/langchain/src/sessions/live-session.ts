// An open session: its graph (the one graph, or the factory's for this session), its MCP connections, the tools the
// user allowed for the session, and at most one running turn. States: idle → running (one Turn) → idle → closed.
// A second prompt while one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { CompiledGraphLike } from '../graph.js';
import type { SessionMcp } from '../mcp/mcp-tools.js';
import type { LangChainSessionContext, ResolvedAgentOptions } from '../options.js';
import { Turn, type TurnHost } from '../turn/turn.js';

/** One open session. */
export class LiveSession implements TurnHost {
  readonly sessionId: string;
  readonly options: ResolvedAgentOptions;
  readonly graph: CompiledGraphLike;
  readonly runConfig: Record<string, unknown>;
  readonly alwaysAllowedTools = new Set<string>();
  readonly toolSchemas: ReadonlyMap<string, unknown>;
  readonly cwd: string;
  readonly #mcp: SessionMcp;
  #running: AbortController | undefined;

  constructor(
    options: ResolvedAgentOptions,
    context: LangChainSessionContext,
    graph: CompiledGraphLike,
    toolSchemas: ReadonlyMap<string, unknown>,
    mcp: SessionMcp,
  ) {
    this.sessionId = context.sessionId;
    this.cwd = context.cwd;
    this.options = options;
    this.graph = graph;
    this.toolSchemas = toolSchemas;
    this.#mcp = mcp;
    this.runConfig = {
      configurable: { thread_id: context.sessionId },
      ...(options.context === undefined ? {} : { context: options.context(context) }),
    };
  }

  get isRunning(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Runs one prompt turn in `session`.
   *
   * @throws `RequestError` -32600 while another prompt of this session runs; whatever the turn throws.
   */
  async prompt(session: AcpSessionContext, prompt: readonly ContentBlock[]): Promise<StopReason> {
    if (this.#running !== undefined) {
      throw RequestError.invalidRequest(
        { sessionId: this.sessionId },
        'a prompt is already running in this session; wait for its response or send session/cancel',
      );
    }
    const running = new AbortController();
    this.#running = running;
    try {
      return await new Turn(this, session, prompt, running.signal).run();
    } finally {
      this.#running = undefined;
    }
  }

  /** Cancels a running turn and closes the MCP connections. */
  async close(): Promise<void> {
    this.#running?.abort();
    await this.#mcp.close().catch(() => undefined);
  }
}
