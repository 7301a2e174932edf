// ACP prompt content → the content of one LangChain HumanMessage. Text goes as text; resource links and embedded
// text resources as text the model can read; images and audio as LangChain's standard base64 data blocks when the
// model takes them (`modelInputs`).
import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';

/** A content block of a LangChain message (the standard `text` and base64 data blocks). */
export type HumanContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image' | 'audio' | 'file';
      readonly source_type: 'base64';
      readonly mime_type: string;
      readonly data: string;
    };

function refuseMedia(kind: 'image' | 'audio'): never {
  throw RequestError.invalidParams(
    { contentType: kind },
    `This agent does not take ${kind} input (promptCapabilities.${kind} is false); send the prompt without it.`,
  );
}

function resourceLinkText(block: Extract<ContentBlock, { type: 'resource_link' }>): string {
  const lines = [`Resource link: ${block.name} <${block.uri}>`];
  if (block.title) lines.push(`Title: ${block.title}`);
  if (block.description) lines.push(`Description: ${block.description}`);
  if (block.mimeType) lines.push(`Media type: ${block.mimeType}`);
  return lines.join('\n');
}

/**
 * The HumanMessage content for a prompt's blocks, in order.
 *
 * @throws `RequestError` -32602 for image or audio content the agent did not advertise.
 */
export function promptToHumanContent(
  prompt: readonly ContentBlock[],
  inputs: { readonly image: boolean; readonly audio: boolean },
): HumanContentBlock[] {
  const content: HumanContentBlock[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: block.text });
        break;
      case 'image':
      case 'audio':
        if (!inputs[block.type]) refuseMedia(block.type);
        content.push({
          type: block.type,
          source_type: 'base64',
          mime_type: block.mimeType,
          data: block.data,
        });
        break;
      case 'resource_link':
        content.push({ type: 'text', text: resourceLinkText(block) });
        break;
      case 'resource': {
        const { resource } = block;
        if ('text' in resource) {
          content.push({
            type: 'text',
            text: `<resource uri="${resource.uri}">\n${resource.text}\n</resource>`,
          });
          break;
        }
        const mediaType = resource.mimeType ?? 'application/octet-stream';
        const kind = mediaType.startsWith('image/')
          ? 'image'
          : mediaType.startsWith('audio/')
            ? 'audio'
            : undefined;
        if (kind !== undefined && inputs[kind]) {
          content.push({ type: kind, source_type: 'base64', mime_type: mediaType, data: resource.blob });
        } else {
          content.push({
            type: 'text',
            text: `<resource uri="${resource.uri}" mediaType="${mediaType}">(binary content not shown to the model)</resource>`,
          });
        }
        break;
      }
    }
  }
  return content;
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
