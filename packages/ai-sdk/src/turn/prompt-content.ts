// ACP prompt content → one AI SDK user message: @acpkit/elicitation's prompt parts, media as file parts.
import { promptParts } from '@acpkit/elicitation';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { FilePart, TextPart, UserModelMessage } from 'ai';
import type { ModelInputs } from '../options.js';

/**
 * The user message for a prompt's content blocks, in order.
 *
 * @throws `RequestError` -32602 for image or audio content the agent did not advertise.
 */
export function promptToUserMessage(prompt: readonly ContentBlock[], inputs: ModelInputs): UserModelMessage {
  const content: Array<TextPart | FilePart> = promptParts(prompt, {
    image: inputs.image === true,
    audio: inputs.audio === true,
  }).map((part) =>
    part.type === 'text' ? part : { type: 'file', data: part.data, mediaType: part.mediaType },
  );
  return { role: 'user', content };
}
