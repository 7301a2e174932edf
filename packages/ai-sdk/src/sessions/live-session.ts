// An open session: its history, transcript and "allow always" tools, and at most one running turn. States: idle (no
// turn) → running (one Turn) → idle. A second prompt while one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import type { ResolvedAgentOptions } from '../options.js';
import type { StoredAiSdkSession } from '../session-store.js';
import { Turn, type TurnHost } from '../turn/turn.js';
import { Transcript } from './transcript.js';

/** One open session. */
export class LiveSession implements TurnHost {
  readonly sessionId: string;
  readonly options: ResolvedAgentOptions;
  readonly transcript: Transcript;
  readonly alwaysAllowedTools: Set<string>;
  readonly #history: ModelMessage[];
  #cwd: string;
  #turn: Turn | undefined;

  constructor(options: ResolvedAgentOptions, stored: StoredAiSdkSession) {
    this.sessionId = stored.sessionId;
    this.options = options;
    this.transcript = new Transcript(stored.transcript);
    this.alwaysAllowedTools = new Set(stored.alwaysAllowedTools);
    this.#history = [...stored.messages];
    this.#cwd = stored.cwd;
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
    const turn = new Turn(this, session, prompt);
    this.#turn = turn;
    try {
      return await turn.run();
    } finally {
      this.#turn = undefined;
      this.#history.push(...turn.messages);
    }
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
    };
  }
}
