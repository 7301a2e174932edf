// What a LangChain message carries, read once per streamed chunk: its text, its reasoning (content blocks of type
// `reasoning` / `thinking`, or `additional_kwargs.reasoning_content`), its tool-call chunks and why the model stopped.
// Written against the message fields, not `contentBlocks`, which builds new objects for every chunk.

/** A message as the graph streams it (an AIMessageChunk, AIMessage, ToolMessage, HumanMessage …). */
export interface MessageLike {
  readonly content?: unknown;
  readonly id?: string | undefined;
  readonly tool_calls?: ReadonlyArray<{ id?: string; name: string; args: unknown }>;
  readonly tool_call_chunks?: ReadonlyArray<{ id?: string; name?: string; index?: number }>;
  readonly tool_call_id?: string;
  readonly name?: string | undefined;
  readonly status?: string;
  readonly artifact?: unknown;
  readonly additional_kwargs?: Record<string, unknown>;
  readonly response_metadata?: Record<string, unknown>;
  getType?(): string;
  _getType?(): string;
}

/** The message's type: `ai`, `tool`, `human`, `system`, … (LangChain's own names). */
export function messageType(message: MessageLike): string | undefined {
  if (typeof message.getType === 'function') return message.getType();
  if (typeof message._getType === 'function') return message._getType();
  return undefined;
}

/** Calls `emit` for each piece of text (`thought` false) and reasoning (`thought` true) of a message, in order. */
export function forEachTextPiece(message: MessageLike, emit: (text: string, thought: boolean) => void): void {
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') emit(reasoning, true);
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') emit(content, false);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content as Array<Record<string, unknown>>) {
    if (typeof block !== 'object' || block === null) continue;
    switch (block.type) {
      case 'text':
      case 'text_delta':
        if (typeof block.text === 'string' && block.text !== '') emit(block.text, false);
        break;
      case 'reasoning':
        if (typeof block.reasoning === 'string' && block.reasoning !== '') emit(block.reasoning, true);
        break;
      case 'thinking':
        if (typeof block.thinking === 'string' && block.thinking !== '') emit(block.thinking, true);
        break;
      default:
        break;
    }
  }
}

/** The message's text, without reasoning. */
export function plainText(message: MessageLike): string {
  let text = '';
  forEachTextPiece(message, (piece, thought) => {
    if (!thought) text += piece;
  });
  return text;
}

/** Why the model stopped, as its provider said in `response_metadata` (OpenAI `finish_reason`, Anthropic `stop_reason`). */
export function finishReasonOf(message: MessageLike): string | undefined {
  const metadata = message.response_metadata;
  if (metadata === undefined) return undefined;
  const reason = metadata.finish_reason ?? metadata.stop_reason ?? metadata.finishReason;
  return typeof reason === 'string' ? reason : undefined;
}
