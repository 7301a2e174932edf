// ACP prompt content → the content of one LangChain HumanMessage. Text goes as text; resource links and embedded
// text resources as text the model can read; images and audio as LangChain's standard base64 data blocks when the
// model takes them (`modelInputs`).
import { promptParts } from '@acpkit/elicitation';
import type { ContentBlock } from '@agentclientprotocol/sdk';

/** A content block of a LangChain message (the standard `text` and base64 data blocks). */
export type HumanContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image' | 'audio' | 'file';
      readonly source_type: 'base64';
      readonly mime_type: string;
      readonly data: string;
    };

/**
 * The HumanMessage content for a prompt's blocks, in order.
 *
 * @throws `RequestError` -32602 for image or audio content the agent did not advertise.
 */
export function promptToHumanContent(
  prompt: readonly ContentBlock[],
  inputs: { readonly image: boolean; readonly audio: boolean },
): HumanContentBlock[] {
  return promptParts(prompt, inputs).map((part) =>
    part.type === 'text'
      ? part
      : { type: part.kind, source_type: 'base64', mime_type: part.mediaType, data: part.data },
  );
}

/** The first line of a prompt's text, for a session title (at most 80 characters). */
export function titleFromPrompt(prompt: readonly ContentBlock[]): string | undefined {
  const text = prompt
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
