// The session's transcript for replay on `session/load`: every update sent, with consecutive text chunks of the
// same kind joined into one, so a long answer is one entry rather than one per streamed token.
import type { SessionUpdate } from '@agentclientprotocol/sdk';

type ChunkKind = 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk';

function isTextChunk(update: SessionUpdate): update is Extract<
  SessionUpdate,
  { sessionUpdate: ChunkKind }
> & {
  content: { type: 'text'; text: string };
} {
  return (
    (update.sessionUpdate === 'agent_message_chunk' ||
      update.sessionUpdate === 'agent_thought_chunk' ||
      update.sessionUpdate === 'user_message_chunk') &&
    update.content.type === 'text'
  );
}

/** The updates of a session, joined as they are recorded. */
export class Transcript {
  readonly #updates: SessionUpdate[];
  /** Text of the open text chunk (joined lazily: `parts.join` once, not a string per token). */
  #openParts: string[] | undefined;

  constructor(updates: readonly SessionUpdate[] = []) {
    this.#updates = [...updates];
  }

  record(update: SessionUpdate): void {
    const last = this.#updates.at(-1);
    if (
      isTextChunk(update) &&
      last !== undefined &&
      isTextChunk(last) &&
      last.sessionUpdate === update.sessionUpdate &&
      this.#openParts !== undefined
    ) {
      this.#openParts.push(update.content.text);
      return;
    }
    this.#close();
    this.#updates.push(update);
    this.#openParts = isTextChunk(update) ? [update.content.text] : undefined;
  }

  /** Everything recorded so far (a new array; chunks joined). */
  snapshot(): SessionUpdate[] {
    this.#close();
    return [...this.#updates];
  }

  /** Ends the open text chunk: the next chunk starts a new entry (the entries so far are saved and final). */
  seal(): void {
    this.#close();
    this.#openParts = undefined;
  }

  /** Writes the joined text of the open chunk into its entry; later chunks of the same run keep joining. */
  #close(): void {
    const parts = this.#openParts;
    if (parts === undefined || parts.length < 2) return;
    const text = parts.join('');
    const index = this.#updates.length - 1;
    const last = this.#updates[index] as Extract<SessionUpdate, { sessionUpdate: ChunkKind }>;
    this.#updates[index] = { ...last, content: { type: 'text', text } };
    this.#openParts = [text];
  }
}
