// How a turn's end maps to an ACP stop reason.
import type { StopReason } from '@agentclientprotocol/sdk';

/** The stop reason of a turn that ran to its end, from the provider's finish reason of the last model message. */
export function stopReasonFor(finishReason: string | undefined): StopReason {
  switch (finishReason) {
    case 'length':
    case 'max_tokens':
    case 'MAX_TOKENS':
      return 'max_tokens';
    case 'content_filter':
    case 'refusal':
    case 'SAFETY':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
