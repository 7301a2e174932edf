// An open session: its history, transcript, adapter state and at most one running turn, plus where its store
// stands (the version saved and how much of the history and transcript that save holds), so each save appends only
// what the turns since the last one added. States: idle (no turn) → running (one Turn) → idle. A second prompt while
// one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import type { SessionSave, SessionSaved } from '@acpkit/sessions';
import { type ContentBlock, type McpServer, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import { expandPrompt, matchCommand } from '../commands/slash-commands.js';
import type { McpSessionConnection } from '../mcp/mcp-option.js';
import type { ResolvedAgentOptions } from '../options.js';
import { SessionState } from '../session-state/session-state.js';
import { turnSetup } from '../session-state/turn-setup.js';
import type { AiSdkSessionEntry, StoredAiSdkSession } from '../session-store.js';
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
  /** Other keys of the stored `state`, carried over as they were read (see `AiSdkSessionState`). */
  readonly #otherState: Record<string, unknown>;
  readonly #history: ModelMessage[];
  #cwd: string;
  #title: string | null;
  #turn: Turn | undefined;
  /** The store's version of this session, and how many messages and transcript updates it holds. */
  #version: number;
  #savedMessages: number;
  #savedUpdates: number;
  /** The editor's MCP servers, connecting or connected (see attachMcpServers). */
  #mcp: Promise<McpSessionConnection> | undefined;
  /** Whether the MCP servers' problems were told to the user already. */
  #mcpReported = false;
  #closed = false;

  constructor(options: ResolvedAgentOptions, stored: StoredAiSdkSession) {
    this.sessionId = stored.sessionId;
    this.options = options;
    this.transcript = new Transcript(stored.transcript);
    const { alwaysAllowedTools, modeId, config, plan, cost, ...otherState } = stored.state;
    this.alwaysAllowedTools = new Set(alwaysAllowedTools);
    this.state = new SessionState({ modeId, config, plan, cost });
    this.#otherState = otherState;
    this.#history = [...stored.messages];
    this.#cwd = stored.cwd;
    this.#title = stored.title;
    this.#version = stored.version;
    this.#savedMessages = stored.messages.length;
    this.#savedUpdates = stored.transcript.length;
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

  /** A new, empty session (never saved: version 0). */
  static empty(sessionId: string, cwd: string): StoredAiSdkSession {
    return {
      sessionId,
      cwd,
      title: null,
      updatedAt: new Date().toISOString(),
      version: 0,
      messages: [],
      transcript: [],
      state: { alwaysAllowedTools: [] },
    };
  }

  get history(): readonly ModelMessage[] {
    return this.#history;
  }

  get isRunning(): boolean {
    return this.#turn !== undefined;
  }

  get title(): string | null {
    return this.#title;
  }

  /** Titles the session once (the first prompt's), unless it has one. */
  nameIfUntitled(title: string | null): void {
    if (this.#title === null) this.#title = title;
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

  /** The save that brings the store up to this session: only what was added since the last save. */
  pendingSave(cwd = this.#cwd): SessionSave<AiSdkSessionEntry> {
    this.#cwd = cwd;
    const transcript = this.transcript.snapshot();
    const entry: AiSdkSessionEntry = {
      messages: this.#history.slice(this.#savedMessages),
      transcript: transcript.slice(this.#savedUpdates),
    };
    return {
      sessionId: this.sessionId,
      expectedVersion: this.#version,
      cwd: this.#cwd,
      title: this.#title,
      state: {
        ...this.#otherState,
        ...this.state.toStored(),
        alwaysAllowedTools: [...this.alwaysAllowedTools],
      },
      append: [entry],
    };
  }

  /** Records that `save` (from {@link pendingSave}) is stored as `saved`. */
  markSaved(save: SessionSave<AiSdkSessionEntry>, saved: SessionSaved): void {
    const [entry] = save.append;
    this.#version = saved.version;
    this.#savedMessages += entry?.messages.length ?? 0;
    this.#savedUpdates += entry?.transcript.length ?? 0;
    // The last saved update is final: the next turn's first chunk starts a new transcript entry.
    this.transcript.seal();
  }
}
