// An open session: its history, transcript, adapter state and at most one running turn, plus where its store
// stands (the version saved and how much of the history and transcript that save holds), so each save appends only
// what the turns since the last one added. States: idle (no turn) → running (one Turn) → idle. A second prompt while
// one runs is refused, not queued.
import type { AcpSessionContext } from '@acpkit/elicitation';
import type { SessionSave, SessionSaved } from '@acpkit/sessions';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import type { ResolvedAgentOptions } from '../options.js';
import type { AiSdkSessionEntry, StoredAiSdkSession } from '../session-store.js';
import { Turn, type TurnHost } from '../turn/turn.js';
import { Transcript } from './transcript.js';

/** One open session. */
export class LiveSession implements TurnHost {
  readonly sessionId: string;
  readonly options: ResolvedAgentOptions;
  readonly transcript: Transcript;
  readonly alwaysAllowedTools: Set<string>;
  /** Adapter state other than `alwaysAllowedTools`, kept across saves as it was read (see `AiSdkSessionState`). */
  readonly state: Map<string, unknown>;
  readonly #history: ModelMessage[];
  #cwd: string;
  #title: string | null;
  #turn: Turn | undefined;
  /** The store's version of this session, and how many messages and transcript updates it holds. */
  #version: number;
  #savedMessages: number;
  #savedUpdates: number;

  constructor(options: ResolvedAgentOptions, stored: StoredAiSdkSession) {
    this.sessionId = stored.sessionId;
    this.options = options;
    this.transcript = new Transcript(stored.transcript);
    const { alwaysAllowedTools, ...state } = stored.state;
    this.alwaysAllowedTools = new Set(alwaysAllowedTools);
    this.state = new Map(Object.entries(state));
    this.#history = [...stored.messages];
    this.#cwd = stored.cwd;
    this.#title = stored.title;
    this.#version = stored.version;
    this.#savedMessages = stored.messages.length;
    this.#savedUpdates = stored.transcript.length;
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
      state: { ...Object.fromEntries(this.state), alwaysAllowedTools: [...this.alwaysAllowedTools] },
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
