// An open session: its history, transcript and "allow always" tools, and at most one running turn. States: idle (no
// turn) → running (one Turn) → idle. A second prompt while one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import { type ContentBlock, type McpServer, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import { expandPrompt, matchCommand } from '../commands/slash-commands.js';
import type { McpSessionConnection } from '../mcp/mcp-option.js';
import type { ResolvedAgentOptions } from '../options.js';
import { SessionState } from '../session-state/session-state.js';
import { turnSetup } from '../session-state/turn-setup.js';
import type { StoredAiSdkSession } from '../session-store.js';
import { Turn, type TurnHost } from '../turn/turn.js';
import { runCommand } from './run-command.js';
import { Transcript } from './transcript.js';

/** One open session. */
export class LiveSession implements TurnHost {
  readonly sessionId: string;
  readonly options: ResolvedAgentOptions;
  readonly transcript: Transcript;
  readonly alwaysAllowedTools: Set<string>;
  /** The session's mode, config values, plan and cost (kept in the stored record's `state`). */
  readonly state: SessionState;
  readonly #history: ModelMessage[];
  #cwd: string;
  #turn: Turn | undefined;
  /** The editor's MCP servers, connecting or connected (see attachMcpServers). */
  #mcp: Promise<McpSessionConnection> | undefined;
  /** Whether the MCP servers' problems were told to the user already. */
  #mcpReported = false;
  #closed = false;

  constructor(options: ResolvedAgentOptions, stored: StoredAiSdkSession) {
    this.sessionId = stored.sessionId;
    this.options = options;
    this.transcript = new Transcript(stored.transcript);
    this.alwaysAllowedTools = new Set(stored.alwaysAllowedTools);
    this.#history = [...stored.messages];
    this.#cwd = stored.cwd;
    this.state = new SessionState(stored.state);
  }

  get cwd(): string {
    return this.#cwd;
  }

  /**
   * Starts connecting the editor's MCP servers (`session/new`/`load`'s `mcpServers`) when the agent has `mcp`; the
   * first turn waits for them (each bounded by its connect timeout). Replaces servers attached before.
   */
  attachMcpServers(servers: readonly McpServer[] | undefined): void {
    const mcp = this.options.mcp;
    if (mcp === undefined || servers === undefined || servers.length === 0) return;
    const previous = this.#mcp;
    this.#mcpReported = false;
    this.#mcp = mcp.connect(servers, { sessionId: this.sessionId, cwd: this.#cwd });
    if (previous !== undefined) void previous.then((connection) => connection.close());
  }

  /** Closes what the session holds open (its MCP servers). The session can still be loaded from the store. */
  async close(): Promise<void> {
    this.#closed = true;
    const mcp = this.#mcp;
    this.#mcp = undefined;
    if (mcp !== undefined) await (await mcp).close();
  }

  /** A new, empty session. */
  static empty(sessionId: string, cwd: string): StoredAiSdkSession {
    return {
      sessionId,
      cwd,
      messages: [],
      transcript: [],
      alwaysAllowedTools: [],
      updatedAt: new Date().toISOString(),
    };
  }

  get history(): readonly ModelMessage[] {
    return this.#history;
  }

  get isRunning(): boolean {
    return this.#turn !== undefined;
  }

  /**
   * Runs one prompt turn in `session` (the turn's `AcpSessionContext`). The turn's messages join the history whatever
   * its end (a cancelled or failed turn keeps what it did, every tool call answered).
   *
   * @throws `RequestError` -32600 while another prompt of this session runs; whatever the turn throws.
   */
  async prompt(session: AcpSessionContext, prompt: readonly ContentBlock[]): Promise<StopReason> {
    if (this.#turn !== undefined) {
      throw RequestError.invalidRequest(
        { sessionId: this.sessionId },
        'a prompt is already running in this session; wait for its response or send session/cancel',
      );
    }
    if (this.#closed) {
      throw RequestError.invalidRequest(
        { sessionId: this.sessionId },
        'this session was closed; load it again',
      );
    }
    const invoked = matchCommand(this.options.commands, prompt);
    if (invoked !== undefined && invoked.command.run !== undefined) {
      return runCommand(this, session, invoked.command, invoked.input, prompt);
    }
    const effectivePrompt =
      invoked === undefined ? prompt : expandPrompt(invoked.command, invoked.input, prompt.slice(1));
    const mcp = this.#mcp === undefined ? undefined : await this.#mcp;
    if (mcp !== undefined && !this.#mcpReported && mcp.problems.length > 0) {
      this.#mcpReported = true;
      const text = mcp.problems.map((problem) => `⚠ ${problem}`).join('\n');
      const update = {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `${text}\n\n` },
      } as const;
      this.transcript.record(update);
      await session.update(update);
    }
    const turn = new Turn(
      this,
      session,
      effectivePrompt,
      turnSetup(this.options, this.state, mcp?.tools ?? {}),
    );
    this.#turn = turn;
    try {
      return await turn.run();
    } finally {
      this.#turn = undefined;
      this.#history.push(...turn.messages);
    }
  }

  /** Adds a command's exchange to the history (the model sees what the user ran and what it answered). */
  recordExchange(userText: string, answer: string): void {
    this.#history.push({ role: 'user', content: userText });
    if (answer !== '') this.#history.push({ role: 'assistant', content: answer });
  }

  /** Sends the transcript again (`session/load`), in order, through `session`. */
  async replay(session: AcpSessionContext): Promise<void> {
    for (const update of this.transcript.snapshot()) await session.update(update);
  }

  /** The session as a store keeps it. */
  toStored(): StoredAiSdkSession {
    return {
      sessionId: this.sessionId,
      cwd: this.#cwd,
      messages: [...this.#history],
      transcript: this.transcript.snapshot(),
      alwaysAllowedTools: [...this.alwaysAllowedTools],
      updatedAt: new Date().toISOString(),
      state: this.state.toStored(),
    };
  }
}
