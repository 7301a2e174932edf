// A session open on one connection: its history, transcript and "allow always" tools, and at most one running turn.
// States: idle (no turn) → running (one Turn) → idle. A second prompt while one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { ModelMessage, ToolSet } from 'ai';
import type { ResolvedAgentOptions } from '../options.js';
import type { StoredAiSdkSession } from '../session-store.js';
import { sendSessionUpdate } from '../session-update.js';
import { bindSessionTools } from '../tools/session-tools.js';
import { Turn, type TurnHost } from '../turn/turn.js';
import { Transcript } from './transcript.js';

/** One session on one connection. */
export class LiveSession implements TurnHost {
  readonly sessionId: string;
  readonly options: ResolvedAgentOptions;
  readonly tools: ToolSet;
  readonly transcript: Transcript;
  readonly alwaysAllowedTools: Set<string>;
  readonly #acpSession: AcpSessionContext;
  readonly #history: ModelMessage[];
  #cwd: string;
  #turn: Turn | undefined;

  constructor(options: ResolvedAgentOptions, acpSession: AcpSessionContext, stored: StoredAiSdkSession) {
    this.sessionId = stored.sessionId;
    this.options = options;
    this.#acpSession = acpSession;
    this.tools = bindSessionTools(options.tools, acpSession);
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

  get client(): AcpSessionContext['client'] {
    return this.#acpSession.client;
  }

  get history(): readonly ModelMessage[] {
    return this.#history;
  }

  get isRunning(): boolean {
    return this.#turn !== undefined;
  }

  set cwd(cwd: string) {
    this.#cwd = cwd;
  }

  /**
   * Runs one prompt turn. The turn's messages join the history whatever its end (a cancelled or failed turn keeps
   * what it did, every tool call answered), and the session is saved.
   *
   * @throws `RequestError` -32600 while another prompt of this session runs; whatever the turn throws.
   */
  async prompt(prompt: readonly ContentBlock[], requestSignal: AbortSignal): Promise<StopReason> {
    if (this.#turn !== undefined) {
      throw RequestError.invalidRequest(
        { sessionId: this.sessionId },
        'a prompt is already running in this session; wait for its response or send session/cancel',
      );
    }
    const turn = new Turn(this, prompt, requestSignal);
    this.#turn = turn;
    try {
      return await turn.run();
    } finally {
      this.#turn = undefined;
      this.#history.push(...turn.messages);
    }
  }

  /** `session/cancel`: ends the running turn, if any. */
  cancel(): void {
    this.#turn?.cancel();
  }

  /** Sends the transcript again (`session/load`), in order. */
  async replay(): Promise<void> {
    for (const update of this.transcript.snapshot()) {
      await sendSessionUpdate(this.client, this.sessionId, update);
    }
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
