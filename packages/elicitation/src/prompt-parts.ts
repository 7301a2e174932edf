// An ACP prompt (`session/prompt` content blocks) as the parts a model reads, whichever framework runs it: text as
// text; resource links and embedded text resources as text naming them; images and audio (blocks or embedded
// resources) as base64 media when the agent advertised them, a binary it cannot take as a note that it exists.
import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';

/**
 * One part of a prompt as a model reads it: text, or base64 media (`image/*`, `audio/*`) the model takes.
 *
 * @example
 * ```ts
 * import type { PromptPart } from '@acpkit/elicitation';
 *
 * const part: PromptPart = { type: 'text', text: 'Deploy the service' };
 * ```
 */
export type PromptPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'media';
      readonly kind: 'image' | 'audio';
      readonly mediaType: string;
      readonly data: string;
    };

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

function mediaKindOf(mediaType: string): 'image' | 'audio' | undefined {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType.startsWith('audio/')) return 'audio';
  return undefined;
}

function embeddedResourcePart(
  block: Extract<ContentBlock, { type: 'resource' }>,
  inputs: { readonly image: boolean; readonly audio: boolean },
): PromptPart {
  const { resource } = block;
  if ('text' in resource) {
    return { type: 'text', text: `<resource uri="${resource.uri}">\n${resource.text}\n</resource>` };
  }
  const mediaType = resource.mimeType ?? 'application/octet-stream';
  const kind = mediaKindOf(mediaType);
  if (kind !== undefined && inputs[kind]) return { type: 'media', kind, mediaType, data: resource.blob };
  // A binary the model cannot take: it learns the resource exists instead of getting bytes it cannot read.
  return {
    type: 'text',
    text: `<resource uri="${resource.uri}" mediaType="${mediaType}">(binary content not shown to the model)</resource>`,
  };
}

/**
 * The parts of a prompt's content blocks, in order, for a model that takes the media `inputs` says (what the agent
 * advertised as `promptCapabilities`).
 *
 * @throws `RequestError` -32602 for an image or audio block the agent did not advertise.
 * @example
 * ```ts
 * import { promptParts } from '@acpkit/elicitation';
 *
 * promptParts([{ type: 'text', text: 'Hello' }], { image: false, audio: false }); // [{ type: 'text', text: 'Hello' }]
 * ```
 */
export function promptParts(
  prompt: readonly ContentBlock[],
  inputs: { readonly image: boolean; readonly audio: boolean },
): PromptPart[] {
  const parts: PromptPart[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
      case 'audio':
        if (!inputs[block.type]) refuseMedia(block.type);
        parts.push({ type: 'media', kind: block.type, mediaType: block.mimeType, data: block.data });
        break;
      case 'resource_link':
        parts.push({ type: 'text', text: resourceLinkText(block) });
        break;
      case 'resource':
        parts.push(embeddedResourcePart(block, inputs));
        break;
    }
  }
  return parts;
}
