import type {
  AnyMessage,
  AvailableCommand,
  CreateElicitationRequest,
  CreateElicitationResponse,
  Diff,
  PlanEntry,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionUpdate,
  StopReason,
  UsageUpdate,
} from '@agentclientprotocol/sdk';
import type { ScriptedFieldAnswer } from './forms/scripted-answers.js';

/** The agent sent a `session/update` notification. */
export interface SessionUpdateEvent {
  readonly kind: 'session-update';
  readonly sessionId: string;
  readonly update: SessionUpdate;
}

/** The agent sent `elicitation/create`; the event holds its request (with the schema) and the client's answer. */
export interface ElicitationRequestEvent {
  readonly kind: 'elicitation-request';
  readonly request: CreateElicitationRequest;
  readonly response: CreateElicitationResponse;
  /** For a form answered from a script or by default: how each field was answered (empty otherwise). */
  readonly answers: readonly ScriptedFieldAnswer[];
}

/** The agent sent `session/request_permission`; the event holds the request and the client's answer. */
export interface PermissionRequestEvent {
  readonly kind: 'permission-request';
  readonly request: RequestPermissionRequest;
  readonly response: RequestPermissionResponse;
}

/** A `session/prompt` turn ended with this stop reason. */
export interface TurnEndEvent {
  readonly kind: 'turn-end';
  readonly sessionId: string;
  readonly stopReason: StopReason;
}

/** A line the agent wrote to stdout that is not JSON-RPC (stdio agents only); it was dropped. */
export interface StdoutNoiseEvent {
  readonly kind: 'stdout-noise';
  /** The start of the line, at most 80 characters. */
  readonly preview: string;
}

/**
 * Events were dropped here to keep the transcript within its limits; what is left stays in order. Its counts go up
 * while events keep being dropped. `reason`: `'limit'`, the transcript reached `maxTranscriptEvents` or
 * `maxTranscriptBytes` (later events are counted, not kept; `turn-end` events are still kept); `'stdout-noise'`, the
 * agent wrote more than {@link MAX_NOISE_EVENTS} non-JSON lines (later ones are counted, not kept).
 */
export interface TruncatedEvent {
  readonly kind: 'truncated';
  readonly reason: 'limit' | 'stdout-noise';
  /** How many events were dropped here so far. */
  readonly droppedEvents: number;
  /** Their size as JSON, in bytes. */
  readonly droppedBytes: number;
}

/** One entry of a {@link TestClient} transcript, in the order it happened. */
export type TranscriptEvent =
  | SessionUpdateEvent
  | ElicitationRequestEvent
  | PermissionRequestEvent
  | TurnEndEvent
  | StdoutNoiseEvent
  | TruncatedEvent;

/** Default of `maxTranscriptEvents`: events a transcript (the client's, and each turn's) keeps. */
export const DEFAULT_MAX_TRANSCRIPT_EVENTS = 10_000;
/** Default of `maxTranscriptBytes`: the size as JSON of the events a transcript keeps. */
export const DEFAULT_MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024;
/** Non-JSON stdout lines of an agent recorded as `stdout-noise` events; later ones are only counted. */
export const MAX_NOISE_EVENTS = 100;

/** The limits of one transcript. */
export interface TranscriptLimits {
  readonly maxEvents: number;
  readonly maxBytes: number;
}

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

/** A {@link TruncatedEvent} that keeps counting. */
export function truncatedEvent(reason: TruncatedEvent['reason']): Mutable<TruncatedEvent> {
  return { kind: 'truncated', reason, droppedEvents: 0, droppedBytes: 0 };
}

/** The size of an event (or message) as JSON, in bytes: what the transcript limits count. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * Events in order, within limits: the first events up to `maxEvents` and `maxBytes` are kept; then one `truncated`
 * event (reason `limit`) counts every later one, except those added with {@link BoundedEvents.addAlways}.
 */
export class BoundedEvents {
  readonly events: TranscriptEvent[] = [];
  private bytes = 0;
  private marker: Mutable<TruncatedEvent> | undefined;

  constructor(private readonly limits: TranscriptLimits) {}

  get truncated(): boolean {
    return this.marker !== undefined;
  }

  add(event: TranscriptEvent, size: number = jsonBytes(event)): void {
    const fits =
      this.marker === undefined &&
      this.events.length < this.limits.maxEvents &&
      this.bytes + size <= this.limits.maxBytes;
    if (fits) {
      this.events.push(event);
      this.bytes += size;
      return;
    }
    if (this.marker === undefined) {
      this.marker = truncatedEvent('limit');
      this.events.push(this.marker);
    }
    this.marker.droppedEvents += 1;
    this.marker.droppedBytes += size;
  }

  /** Adds an event the limits do not apply to (a turn's end, the noise marker): one per turn or per client. */
  addAlways(event: TranscriptEvent): void {
    this.events.push(event);
  }
}

/** One JSON-RPC message as it crossed the connection. */
export interface WireMessage {
  readonly direction: 'to-agent' | 'to-client';
  readonly message: AnyMessage;
}

/**
 * What happened during one `prompt()` turn: every event in order, plus the same events sorted by kind.
 *
 * @example
 * ```ts
 * const turn = await client.prompt('Deploy');
 * expect(turn.text).toBe('Selected: preview');
 * expect(turn.elicitations[0]?.request.mode).toBe('form');
 * ```
 */
export interface TurnTranscript {
  readonly stopReason: StopReason;
  /** Everything this turn did, in order (ends with the `turn-end` event). */
  readonly events: readonly TranscriptEvent[];
  readonly updates: readonly SessionUpdate[];
  readonly elicitations: readonly ElicitationRequestEvent[];
  readonly permissions: readonly PermissionRequestEvent[];
  /** The text of every `agent_message_chunk` of this turn, joined. */
  readonly text: string;
  /** True when events of this turn were dropped to keep it within its limits (a `truncated` event marks where). */
  readonly truncated: boolean;
  /** The last `plan` of this turn (entries in order), when the agent sent one. */
  readonly plan: readonly PlanEntry[] | undefined;
  /** The last `usage_update` of this turn. */
  readonly usage: UsageUpdate | undefined;
  /** Every `diff` shown on a tool call of this turn, in order. */
  readonly diffs: readonly Diff[];
  /** Ids of the terminals embedded in tool calls of this turn, in order. */
  readonly terminals: readonly string[];
  /** The mode the agent announced last in this turn (`current_mode_update`). */
  readonly modeId: string | undefined;
  /** The config options the agent announced last in this turn (`config_option_update`). */
  readonly configOptions: readonly SessionConfigOption[] | undefined;
  /** The commands the agent announced last in this turn (`available_commands_update`). */
  readonly commands: readonly AvailableCommand[] | undefined;
}

/** Sorts a turn's events into a {@link TurnTranscript}. */
export function summarizeTurn(events: readonly TranscriptEvent[], stopReason: StopReason): TurnTranscript {
  const updates: SessionUpdate[] = [];
  const elicitations: ElicitationRequestEvent[] = [];
  const permissions: PermissionRequestEvent[] = [];
  let text = '';
  for (const event of events) {
    if (event.kind === 'session-update') {
      updates.push(event.update);
      if (event.update.sessionUpdate === 'agent_message_chunk' && event.update.content.type === 'text') {
        text += event.update.content.text;
      }
    } else if (event.kind === 'elicitation-request') {
      elicitations.push(event);
    } else if (event.kind === 'permission-request') {
      permissions.push(event);
    }
  }
  const truncated = events.some((event) => event.kind === 'truncated' && event.reason === 'limit');
  return { stopReason, events, updates, elicitations, permissions, text, truncated, ...editorView(updates) };
}

type EditorView = Pick<
  TurnTranscript,
  'plan' | 'usage' | 'diffs' | 'terminals' | 'modeId' | 'configOptions' | 'commands'
>;

/** What a turn showed beyond text: plan, usage, diffs, terminals and the session's switches. */
function editorView(updates: readonly SessionUpdate[]): EditorView {
  let plan: PlanEntry[] | undefined;
  let usage: UsageUpdate | undefined;
  let modeId: string | undefined;
  let configOptions: SessionConfigOption[] | undefined;
  let commands: AvailableCommand[] | undefined;
  const diffs: Diff[] = [];
  const terminals: string[] = [];
  for (const update of updates) {
    switch (update.sessionUpdate) {
      case 'plan':
        plan = update.entries;
        break;
      case 'usage_update':
        usage = update;
        break;
      case 'current_mode_update':
        modeId = update.currentModeId;
        break;
      case 'config_option_update':
        configOptions = update.configOptions;
        break;
      case 'available_commands_update':
        commands = update.availableCommands;
        break;
      case 'tool_call':
      case 'tool_call_update':
        for (const content of update.content ?? []) {
          if (content.type === 'diff') diffs.push(content);
          else if (content.type === 'terminal') terminals.push(content.terminalId);
        }
        break;
      default:
        break;
    }
  }
  return { plan, usage, diffs, terminals, modeId, configOptions, commands };
}
