// What ACP needs to know of a session besides the graph's state (its cwd, title and last change, for session/list
// and session/load) is kept in the graph's own checkpointer, beside the thread's checkpoints: one checkpoint under
// the namespace `__acpkit_session__` of the same thread, overwritten in place (fixed checkpoint id). So whatever
// saver keeps the threads (memory, SQLite, Postgres) keeps the sessions too, `deleteThread` removes both, and the
// graph never reads it (LangGraph reads only its own namespaces).
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { emptyCheckpoint } from '@langchain/langgraph';

/** The namespace the session records live in. */
export const SESSION_NAMESPACE = '__acpkit_session__';
const RECORD_ID = 'acpkit-session';

/** A session as `session/list` shows it. */
export interface SessionRecord {
  readonly sessionId: string;
  readonly cwd: string;
  readonly title: string | undefined;
  readonly updatedAt: string;
}

function recordConfig(sessionId: string) {
  return {
    configurable: { thread_id: sessionId, checkpoint_ns: SESSION_NAMESPACE, checkpoint_id: RECORD_ID },
  };
}

function fromMetadata(sessionId: string, metadata: unknown): SessionRecord | undefined {
  const acpkit = (
    metadata as { acpkit?: { cwd?: unknown; title?: unknown; updatedAt?: unknown } } | undefined
  )?.acpkit;
  if (acpkit === undefined || typeof acpkit.cwd !== 'string' || typeof acpkit.updatedAt !== 'string')
    return undefined;
  return {
    sessionId,
    cwd: acpkit.cwd,
    title: typeof acpkit.title === 'string' ? acpkit.title : undefined,
    updatedAt: acpkit.updatedAt,
  };
}

/** The session records of one checkpointer. */
export class SessionRecords {
  readonly #saver: BaseCheckpointSaver;

  constructor(saver: BaseCheckpointSaver) {
    this.#saver = saver;
  }

  /** Whether the checkpointer can delete a thread (`session/delete` is advertised only then). */
  get canDelete(): boolean {
    const deleteThread = (this.#saver as { deleteThread?: unknown }).deleteThread;
    return typeof deleteThread === 'function';
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const tuple = await this.#saver.getTuple(recordConfig(sessionId));
    return tuple === undefined ? undefined : fromMetadata(sessionId, tuple.metadata);
  }

  async save(record: SessionRecord): Promise<void> {
    const checkpoint = { ...emptyCheckpoint(), id: RECORD_ID };
    const metadata = {
      source: 'update',
      step: -1,
      parents: {},
      acpkit: { cwd: record.cwd, title: record.title ?? null, updatedAt: record.updatedAt },
    };
    await this.#saver.put(
      { configurable: { thread_id: record.sessionId, checkpoint_ns: SESSION_NAMESPACE } },
      checkpoint,
      metadata as never,
      {},
    );
  }

  /** Every recorded session, most recently changed first, only those in `cwd` when given. */
  async list(cwd: string | undefined): Promise<SessionRecord[]> {
    const records = new Map<string, SessionRecord>();
    for await (const tuple of this.#saver.list({ configurable: { checkpoint_ns: SESSION_NAMESPACE } })) {
      const { thread_id: sessionId, checkpoint_ns: namespace } = tuple.config.configurable ?? {};
      if (namespace !== SESSION_NAMESPACE || typeof sessionId !== 'string') continue;
      const record = fromMetadata(sessionId, tuple.metadata);
      if (record !== undefined && (cwd === undefined || record.cwd === cwd)) records.set(sessionId, record);
    }
    return [...records.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  /** Deletes the thread: its checkpoints and its record. */
  async delete(sessionId: string): Promise<void> {
    await (this.#saver as unknown as { deleteThread(threadId: string): Promise<void> }).deleteThread(
      sessionId,
    );
  }
}
