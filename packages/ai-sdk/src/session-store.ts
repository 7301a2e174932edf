// What an AI SDK session keeps in a @acpkit/sessions store, and how it is read back: one entry per save (the model
// messages and transcript updates that save added), and the adapter state (tools allowed for the session, plus any
// key another part of the adapter keeps, carried over untouched). Read back, every message is checked with the AI
// SDK's own model-message schema, so a damaged store is a clear error, never a model call on bad input.
import {
  type SessionStore,
  SessionStoreError,
  SessionStoreErrorCode,
  type StoredSession,
} from '@acpkit/sessions';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { type ModelMessage, modelMessageSchema } from 'ai';
import type { AiSdkSessionChoices } from './session-state/session-state.js';

/**
 * One save of an AI SDK session: what a turn added to the conversation (`messages`, as the model sees them) and to
 * what the client is shown again on `session/load` (`transcript`).
 *
 * @example
 * ```ts
 * import type { AiSdkSessionEntry } from '@acpkit/ai-sdk';
 *
 * const entry: AiSdkSessionEntry = { messages: [{ role: 'user', content: 'hi' }], transcript: [] };
 * ```
 */
export interface AiSdkSessionEntry {
  readonly messages: readonly ModelMessage[];
  readonly transcript: readonly SessionUpdate[];
}

/**
 * The adapter state kept with a session (`StoredSession.state`). `alwaysAllowedTools` is the tools the user allowed
 * for the whole session; the user's choices (mode, config values, the model among them, plan and cost:
 * {@link AiSdkSessionChoices}) sit beside it; other keys are carried over as they are. Values are JSON (or `Uint8Array`).
 *
 * @example
 * ```ts
 * import type { AiSdkSessionState } from '@acpkit/ai-sdk';
 *
 * const state: AiSdkSessionState = { alwaysAllowedTools: ['readFile'], modeId: 'ask' };
 * ```
 */
export interface AiSdkSessionState extends AiSdkSessionChoices {
  readonly alwaysAllowedTools: readonly string[];
  readonly [key: string]: unknown;
}

/**
 * A stored session as the agent opens it again.
 *
 * @example
 * ```ts
 * import type { StoredAiSdkSession } from '@acpkit/ai-sdk';
 *
 * const turns = (session: StoredAiSdkSession) => session.messages.filter((message) => message.role === 'user').length;
 * ```
 */
export interface StoredAiSdkSession {
  readonly sessionId: string;
  readonly cwd: string;
  readonly title: string | null;
  readonly updatedAt: string;
  /** The store's version of the session (what the next save expects). 0 for a session never saved. */
  readonly version: number;
  readonly messages: readonly ModelMessage[];
  readonly transcript: readonly SessionUpdate[];
  readonly state: AiSdkSessionState;
}

/**
 * A session store for `createAiSdkAgent`: any `@acpkit/sessions` store (memory, file, SQLite, Postgres, or one of
 * yours that passes `@acpkit/sessions/testing`).
 *
 * @example
 * ```ts
 * import type { AiSdkSessionStore } from '@acpkit/ai-sdk';
 * import { fileSessionStore } from '@acpkit/sessions';
 *
 * const store: AiSdkSessionStore = fileSessionStore({ directory: './sessions' });
 * ```
 */
export type AiSdkSessionStore = SessionStore;

function corrupt(sessionId: string, what: string, cause?: unknown): SessionStoreError {
  return new SessionStoreError(
    SessionStoreErrorCode.CorruptRecord,
    `session ${sessionId} was read back but ${what}; it was not opened. Restore it from a backup or delete it`,
    { sessionId },
    { cause },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with the user's choices in a stored state (see `AiSdkSessionChoices`), if anything. */
function choicesProblem(state: Record<string, unknown>): string | undefined {
  const { modeId, config, plan, cost } = state;
  if (modeId !== undefined && typeof modeId !== 'string') return 'modeId is not a mode id';
  if (
    config !== undefined &&
    (!isObject(config) ||
      !Object.values(config).every((value) => typeof value === 'string' || typeof value === 'boolean'))
  )
    return 'config is not a map of option ids to values';
  if (plan !== undefined && !(Array.isArray(plan) && plan.every(isObject)))
    return 'plan is not a list of entries';
  if (
    cost !== undefined &&
    !(isObject(cost) && typeof cost.amount === 'number' && typeof cost.currency === 'string')
  )
    return 'cost is not an amount and a currency';
  return undefined;
}

/**
 * A stored session checked and shaped for the agent.
 *
 * @throws SessionStoreError `CORRUPT_RECORD` when an entry or a message is not what this adapter writes.
 */
export function readStoredSession(stored: StoredSession): StoredAiSdkSession {
  const messages: ModelMessage[] = [];
  const transcript: SessionUpdate[] = [];
  for (const [index, entry] of stored.entries.entries()) {
    if (!isObject(entry) || !Array.isArray(entry.messages) || !Array.isArray(entry.transcript)) {
      throw corrupt(stored.sessionId, `entry ${index} is not an AI SDK session entry`);
    }
    for (const message of entry.messages) {
      const parsed = modelMessageSchema.safeParse(message);
      if (!parsed.success)
        throw corrupt(stored.sessionId, `entry ${index} holds an invalid model message`, parsed.error);
      messages.push(parsed.data);
    }
    for (const update of entry.transcript) {
      if (!isObject(update) || typeof update.sessionUpdate !== 'string') {
        throw corrupt(stored.sessionId, `entry ${index} holds an invalid transcript update`);
      }
      transcript.push(update as SessionUpdate);
    }
  }
  const allowed = stored.state.alwaysAllowedTools ?? [];
  if (!Array.isArray(allowed) || !allowed.every((tool) => typeof tool === 'string')) {
    throw corrupt(stored.sessionId, 'its state.alwaysAllowedTools is not a list of tool names');
  }
  const choices = choicesProblem(stored.state);
  if (choices !== undefined) throw corrupt(stored.sessionId, `its state.${choices}`);
  return {
    sessionId: stored.sessionId,
    cwd: stored.cwd,
    title: stored.title,
    updatedAt: stored.updatedAt,
    version: stored.version,
    messages,
    transcript,
    state: { ...stored.state, alwaysAllowedTools: allowed },
  };
}
