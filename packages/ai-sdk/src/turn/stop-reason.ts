// How a turn's end maps to an ACP stop reason.
import type { StopReason } from '@agentclientprotocol/sdk';

/**
 * The stop reason of a turn that ran to its end: the AI SDK's finish reason of the last step (`undefined` when no
 * step finished), and whether the step limit was what ended it. `error` is not mapped: a turn that ends with an
 * error fails with a JSON-RPC error instead.
 */
export function stopReasonFor(finishReason: string | undefined, stepLimitReached: boolean): StopReason {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    case 'tool-calls':
      // The model still wanted to call tools: only the step limit (maxSteps) stops it there.
      return stepLimitReached ? 'max_turn_requests' : 'end_turn';
    default:
      // 'stop', 'other', 'interrupted' (ai 7: the provider's stream ended without a finish signal).
      return 'end_turn';
  }
}
