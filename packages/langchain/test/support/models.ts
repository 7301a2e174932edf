// Scripted chat models for the tests: LangChain's own fakes (`fakeModel` for whole messages with tool calls,
// `FakeStreamingChatModel` for token streams), plus one that streams a reply and then fails, and one that streams a
// tool call chunk by chunk, as providers do.
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';

/** Streams `chunks` for each call in turn (one list per model call); a string chunk is text. */
export class ScriptedStreamingModel extends FakeStreamingChatModel {
  readonly #script: Array<Array<AIMessageChunk | Error>>;
  calls = 0;

  constructor(script: Array<Array<AIMessageChunk | string | Error>>) {
    super({});
    this.#script = script.map((turn) =>
      turn.map((chunk) => (typeof chunk === 'string' ? new AIMessageChunk({ content: chunk }) : chunk)),
    );
  }

  override bindTools(): never {
    return this as never;
  }

  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const turn = this.#script[this.calls] ?? [new AIMessageChunk({ content: '(no more scripted replies)' })];
    this.calls += 1;
    for (const chunk of turn) {
      if (chunk instanceof Error) throw chunk;
      const text = typeof chunk.content === 'string' ? chunk.content : '';
      const generation = new ChatGenerationChunk({ message: chunk, text });
      yield generation;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, {
        chunk: generation,
      });
    }
  }
}

/** A streamed tool call: its first chunk names it, the rest carry its arguments. */
export function toolCallChunks(id: string, name: string, args: Record<string, unknown>): AIMessageChunk[] {
  const json = JSON.stringify(args);
  const half = Math.floor(json.length / 2);
  return [
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ id, name, args: json.slice(0, half), index: 0, type: 'tool_call_chunk' }],
    }),
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ args: json.slice(half), index: 0, type: 'tool_call_chunk' }],
    }),
  ];
}
