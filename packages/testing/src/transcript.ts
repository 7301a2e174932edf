import type {
  AnyMessage,
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  StopReason,
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

/** One entry of a {@link TestClient} transcript, in the order it happened. */
export type TranscriptEvent =
  | SessionUpdateEvent
  | ElicitationRequestEvent
  | PermissionRequestEvent
  | TurnEndEvent
  | StdoutNoiseEvent;

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
  return { stopReason, events, updates, elicitations, permissions, text };
}
