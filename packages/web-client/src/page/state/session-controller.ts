// What the page does with its ACP connection: start or pick up a session, send prompts, answer the agent's
// permission requests and forms, cancel, switch sessions, modes and options; and what it keeps for a reload.
import {
  AcpCallError,
  AcpConnection,
  type JsonRpcMessage,
  type LinkState,
  type StreamKey,
} from '../acp/acp-connection.js';
import { Conversation, type FormEntry, type PermissionEntry } from './conversation.js';

const STORAGE_KEY = 'acpkit-web:conversation';
/** Prompts kept for a reload, newest last; older ones are still in the agent's history. */
const MAX_SAVED_PROMPTS = 200;

/** What survives a reload (sessionStorage: this tab only). Never the agent's messages: the server replays those. */
interface SavedPage {
  connectionId: string;
  sessionId: string | undefined;
  nextId: number;
  agent: AgentInfo;
  setup: unknown;
  /** The person's prompts: request id, text, and the last session event seen when it was sent. */
  prompts: { id: number; text: string; after: number }[];
  /** Answers already given, by the agent's request id. */
  answered: Record<string, string>;
}

export interface AgentInfo {
  name: string;
  loadSession: boolean;
  listSessions: boolean;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly title: string;
  readonly updatedAt: string | undefined;
}

export interface PageConfig {
  readonly cwd: string;
  readonly title: string;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The state behind the page: one connection, the current session's conversation, and the link's health. */
export class SessionController {
  conversation = new Conversation();
  link: LinkState = 'connecting';
  linkDetail: string | undefined;
  agent: AgentInfo = { name: 'agent', loadSession: false, listSessions: false };
  sessions: SessionSummary[] | undefined;
  private readonly connection: AcpConnection;
  private saved: SavedPage | undefined;
  private setup: unknown;
  private sessionEventId = 0;
  private replayedPrompts: SavedPage['prompts'] = [];
  private listeners = new Set<() => void>();
  private scheduled = false;

  constructor(private readonly config: PageConfig) {
    this.connection = new AcpConnection({
      onMessage: (message, stream, id) => this.onMessage(message, stream, id),
      onLinkState: (state, detail) => {
        this.link = state;
        this.linkDetail = detail;
        if (state === 'ended') {
          this.conversation.turnActive = false;
          sessionStorage.removeItem(STORAGE_KEY);
        }
        if (state === 'open' && this.replayedPrompts.length > 0)
          setTimeout(() => this.flushPrompts(Infinity), 300);
        this.changed();
      },
      onGap: () => {
        this.conversation.notice(
          'Some earlier messages of this conversation are no longer held by the server; the conversation goes on below.',
          'warning',
        );
        this.changed();
      },
    });
  }

  /** Whether a session is open to prompt (false until the agent answered `session/new`, `load` or a resume). */
  get hasSession(): boolean {
    return this.connection.currentSessionId !== undefined;
  }

  /** Redraw requests, at most one per animation frame however many updates arrive. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }

  /** Picks up the tab's conversation after a reload, or opens a new connection and session. */
  async start(): Promise<void> {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    if (stored !== null) {
      try {
        this.saved = JSON.parse(stored) as SavedPage;
      } catch {
        this.saved = undefined;
      }
    }
    if (this.saved !== undefined) {
      this.agent = this.saved.agent;
      this.setup = this.saved.setup;
      this.conversation.applySetup(this.setup);
      this.replayedPrompts = [...this.saved.prompts];
      this.connection.resume(
        { connectionId: this.saved.connectionId, sessionId: this.saved.sessionId, nextId: this.saved.nextId },
        0,
      );
      this.changed();
      return;
    }
    try {
      const result = await this.connection.initialize({
        protocolVersion: 1,
        clientCapabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'acpkit-web', title: 'ACP Kit web client', version: '0.1.0' },
      });
      const info = isRecord(result) ? result : {};
      const capabilities = isRecord(info.agentCapabilities) ? info.agentCapabilities : {};
      const sessionCapabilities = isRecord(capabilities.sessionCapabilities)
        ? capabilities.sessionCapabilities
        : {};
      const agentInfo = isRecord(info.agentInfo) ? info.agentInfo : {};
      this.agent = {
        name: String(agentInfo.title ?? agentInfo.name ?? this.config.title),
        loadSession: capabilities.loadSession === true,
        listSessions: isRecord(sessionCapabilities.list),
      };
      await this.newSession();
    } catch (error) {
      this.fail(error);
    }
  }

  async newSession(): Promise<void> {
    try {
      const result = await this.connection.request('session/new', { cwd: this.config.cwd, mcpServers: [] });
      const sessionId = isRecord(result) ? String(result.sessionId) : '';
      this.switchTo(sessionId, result);
    } catch (error) {
      this.fail(error);
    }
  }

  async listSessions(): Promise<void> {
    try {
      const result = await this.connection.request('session/list', { cwd: this.config.cwd });
      const sessions =
        isRecord(result) && Array.isArray(result.sessions) ? result.sessions.filter(isRecord) : [];
      this.sessions = sessions.map((session) => ({
        sessionId: String(session.sessionId),
        title:
          typeof session.title === 'string' && session.title !== ''
            ? session.title
            : String(session.sessionId),
        updatedAt: typeof session.updatedAt === 'string' ? session.updatedAt : undefined,
      }));
      this.changed();
    } catch (error) {
      this.fail(error);
    }
  }

  async loadSession(sessionId: string): Promise<void> {
    // The agent replays the session's history as updates: read its stream before asking.
    this.switchTo(sessionId, undefined);
    this.sessions = undefined;
    try {
      const result = await this.connection.request(
        'session/load',
        { sessionId, cwd: this.config.cwd, mcpServers: [] },
        sessionId,
      );
      this.setup = result;
      this.conversation.applySetup(result);
      this.save();
    } catch (error) {
      this.fail(error);
    }
  }

  async prompt(text: string): Promise<void> {
    const sessionId = this.connection.currentSessionId;
    if (sessionId === undefined || text.trim() === '') return;
    const id = this.connection.peekNextId();
    this.conversation.addUser(text);
    this.conversation.turnActive = true;
    this.saved?.prompts.push({ id, text, after: this.sessionEventId });
    if (this.saved !== undefined && this.saved.prompts.length > MAX_SAVED_PROMPTS) this.saved.prompts.shift();
    this.changed();
    const answer = this.connection.request(
      'session/prompt',
      { sessionId, prompt: [{ type: 'text', text }] },
      sessionId,
    );
    this.save();
    try {
      this.endTurn(await answer);
    } catch (error) {
      this.conversation.turnActive = false;
      this.fail(error);
    }
  }

  /** Cancels the turn: `session/cancel`, and every question still open is answered `cancelled` (as ACP asks). */
  async cancel(): Promise<void> {
    const sessionId = this.connection.currentSessionId;
    if (sessionId === undefined) return;
    await this.connection
      .notify('session/cancel', { sessionId }, sessionId)
      .catch((error) => this.fail(error));
    for (const entry of this.conversation.openRequests()) {
      if (entry.kind === 'permission') void this.answerPermission(entry, undefined);
      else void this.answerForm(entry, 'cancel', undefined);
    }
  }

  /** Answers a permission request with one of its options, or `cancelled` (no option). */
  async answerPermission(entry: PermissionEntry, optionId: string | undefined): Promise<void> {
    if (entry.settled !== undefined) return;
    const option = entry.options.find((candidate) => candidate.optionId === optionId);
    const summary = option === undefined ? 'Cancelled' : option.name;
    entry.settled = { summary };
    this.remember(entry.requestId, summary);
    this.conversation.changed();
    this.changed();
    const outcome =
      option === undefined ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: option.optionId };
    await this.connection
      .respond(entry.requestId, { outcome }, entry.sessionId)
      .catch((error) => this.fail(error));
  }

  /** Answers a form: accept with the validated content, decline, or cancel. */
  async answerForm(
    entry: FormEntry,
    action: 'accept' | 'decline' | 'cancel',
    content: Record<string, unknown> | undefined,
  ): Promise<void> {
    if (entry.settled !== undefined) return;
    const summary = action === 'accept' ? 'Sent' : action === 'decline' ? 'Declined' : 'Cancelled';
    entry.settled = { summary };
    this.remember(entry.requestId, summary);
    this.conversation.changed();
    this.changed();
    const result = action === 'accept' ? { action, content: content ?? {} } : { action };
    await this.connection
      .respond(entry.requestId, result, entry.sessionId)
      .catch((error) => this.fail(error));
  }

  async setMode(modeId: string): Promise<void> {
    const sessionId = this.connection.currentSessionId;
    if (sessionId === undefined) return;
    try {
      await this.connection.request('session/set_mode', { sessionId, modeId }, sessionId);
      this.conversation.currentModeId = modeId;
      this.conversation.changed();
      this.changed();
    } catch (error) {
      this.fail(error);
    }
  }

  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const sessionId = this.connection.currentSessionId;
    if (sessionId === undefined) return;
    try {
      const params =
        typeof value === 'boolean'
          ? { sessionId, configId, type: 'boolean', value }
          : { sessionId, configId, value };
      const result = await this.connection.request('session/set_config_option', params, sessionId);
      if (isRecord(result) && Array.isArray(result.configOptions)) this.conversation.applySetup(result);
      this.changed();
    } catch (error) {
      this.fail(error);
    }
  }

  private switchTo(sessionId: string, setup: unknown): void {
    this.conversation = new Conversation();
    this.sessionEventId = 0;
    this.setup = setup;
    this.conversation.applySetup(setup);
    this.connection.useSession(sessionId);
    const snapshot = this.connection.snapshot();
    if (snapshot !== undefined) {
      this.saved = {
        connectionId: snapshot.connectionId,
        sessionId,
        nextId: snapshot.nextId,
        agent: this.agent,
        setup,
        prompts: [],
        answered: {},
      };
    }
    this.save();
    this.changed();
  }

  private endTurn(result: unknown): void {
    this.conversation.turnActive = false;
    const stopReason = isRecord(result) ? result.stopReason : undefined;
    if (stopReason === 'cancelled') this.conversation.notice('Turn cancelled.');
    else if (typeof stopReason === 'string' && stopReason !== 'end_turn') {
      this.conversation.notice(`The turn ended: ${stopReason.replaceAll('_', ' ')}.`, 'warning');
    }
    this.conversation.changed();
    this.changed();
  }

  private onMessage(message: JsonRpcMessage, stream: StreamKey, eventId: number | undefined): void {
    if (stream === 'session' && eventId !== undefined) {
      this.flushPrompts(eventId);
      this.sessionEventId = eventId;
    }
    if (message.method === undefined) {
      if (this.connection.settleAnswer(message)) return;
      // An answer this page asked for before a reload: the end of a turn, replayed.
      const prompt = this.saved?.prompts.find((candidate) => candidate.id === message.id);
      if (prompt !== undefined) this.endTurn(message.result);
      return;
    }
    const params = isRecord(message.params) ? message.params : {};
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const current = this.connection.currentSessionId;
    if (message.id === undefined || message.id === null) {
      if (message.method === 'session/update' && sessionId === current) {
        this.conversation.apply(params.update);
        this.changed();
      }
      return;
    }
    const requestId = message.id;
    const answered = this.saved?.answered[String(requestId)];
    const settled = answered === undefined ? undefined : { summary: answered };
    if (message.method === 'session/request_permission') {
      this.conversation.addPermission(requestId, params, settled);
      if (settled === undefined && sessionId === current) this.conversation.turnActive = true;
    } else if (message.method === 'elicitation/create' && params.mode === 'form') {
      this.conversation.addForm(requestId, params, settled);
    } else if (answered === undefined) {
      void this.connection
        .respondError(requestId, -32601, `The web client does not handle ${message.method}.`, sessionId)
        .catch(() => undefined);
    }
    this.changed();
  }

  /** After a reload: the person's prompts go back between the replayed events where they were sent. */
  private flushPrompts(beforeEventId: number): void {
    while (
      this.replayedPrompts.length > 0 &&
      (this.replayedPrompts[0] as SavedPage['prompts'][number]).after < beforeEventId
    ) {
      const prompt = this.replayedPrompts.shift() as SavedPage['prompts'][number];
      this.conversation.addUser(prompt.text);
      this.conversation.turnActive = true;
    }
    this.changed();
  }

  private remember(requestId: number | string, summary: string): void {
    if (this.saved !== undefined) this.saved.answered[String(requestId)] = summary;
    this.save();
  }

  private save(): void {
    if (this.saved === undefined) return;
    const snapshot = this.connection.snapshot();
    if (snapshot !== undefined) this.saved.nextId = snapshot.nextId;
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.saved));
    } catch {
      // Storage full or off: a reload then starts a new conversation; nothing else depends on it.
    }
  }

  private fail(error: unknown): void {
    const text = error instanceof AcpCallError || error instanceof Error ? error.message : String(error);
    this.conversation.notice(text, 'error');
    this.changed();
  }
}
