// ACP prompt content → one AI SDK user message. Text goes as text; resource links and embedded text resources as
// text the model can read; images and audio as file parts when the model takes them (`modelInputs`).
import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';
import type { FilePart, TextPart, UserModelMessage } from 'ai';
import type { ModelInputs } from '../options.js';

/** Media the client may send only when the agent advertised it (`promptCapabilities.image` / `.audio`). */
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

function embeddedResource(
  block: Extract<ContentBlock, { type: 'resource' }>,
  inputs: ModelInputs,
): TextPart | FilePart {
  const { resource } = block;
  if ('text' in resource) {
    return { type: 'text', text: `<resource uri="${resource.uri}">\n${resource.text}\n</resource>` };
  }
  const mediaType = resource.mimeType ?? 'application/octet-stream';
  if ((mediaType.startsWith('image/') && inputs.image) || (mediaType.startsWith('audio/') && inputs.audio)) {
    return { type: 'file', data: resource.blob, mediaType };
  }
  // A binary the model cannot take: it learns the resource exists instead of getting bytes it cannot read.
  return {
    type: 'text',
    text: `<resource uri="${resource.uri}" mediaType="${mediaType}">(binary content not shown to the model)</resource>`,
  };
}

/**
 * The user message for a prompt's content blocks, in order.
 *
 * @throws `RequestError` -32602 for image or audio content the agent did not advertise.
 */
export function promptToUserMessage(prompt: readonly ContentBlock[], inputs: ModelInputs): UserModelMessage {
  const content: Array<TextPart | FilePart> = [];
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: block.text });
        break;
      case 'image':
        if (!inputs.image) refuseMedia('image');
        content.push({ type: 'file', data: block.data, mediaType: block.mimeType });
        break;
      case 'audio':
        if (!inputs.audio) refuseMedia('audio');
        content.push({ type: 'file', data: block.data, mediaType: block.mimeType });
        break;
      case 'resource_link':
        content.push({ type: 'text', text: resourceLinkText(block) });
        break;
      case 'resource':
        content.push(embeddedResource(block, inputs));
        break;
    }
  }
  return { role: 'user', content };
}
