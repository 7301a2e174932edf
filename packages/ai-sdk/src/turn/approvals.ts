// A tool call the AI SDK holds for approval (`needsApproval`) becomes one `session/request_permission` for the same
// tool call: allow once, allow always (remembered for the session by the caller), reject. Anything but an allow
// option the agent offered is a rejection: a tool never runs on an answer it cannot read.
import { type ElicitationClient, requestToolPermission, toolPermissionOptions } from '@acpkit/elicitation';
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';

/** What the user decided about one tool call. */
export type ApprovalDecision =
  | { readonly approved: true; readonly always: boolean }
  | { readonly approved: false; readonly reason: string; readonly cancelled: boolean };

/** What the model is told about a call the user rejected. */
export const REJECTED_REASON = 'The user rejected this tool call; it did not run.';
const CANCELLED_REASON = 'The user cancelled the turn before allowing this tool call; it did not run.';
const FAILED_REASON = 'The permission request failed, so this tool call did not run.';

/**
 * Asks the client whether `toolCall` may run. Resolves a decision, never rejects for the client's sake: a cancelled
 * `signal` (session/cancel) or a failed request is a rejection that ran nothing.
 */
export async function requestToolApproval(
  client: ElicitationClient,
  sessionId: string,
  toolName: string,
  toolCall: ToolCallUpdate,
  signal: AbortSignal,
): Promise<ApprovalDecision> {
  const answer = await requestToolPermission(client, {
    sessionId,
    toolCall,
    options: toolPermissionOptions(toolName),
    signal,
  });
  if (answer.outcome === 'cancelled') return { approved: false, reason: CANCELLED_REASON, cancelled: true };
  if (answer.outcome === 'failed') return { approved: false, reason: FAILED_REASON, cancelled: false };
  if (answer.outcome === 'selected' && answer.optionId === 'allow_once')
    return { approved: true, always: false };
  if (answer.outcome === 'selected' && answer.optionId === 'allow_always')
    return { approved: true, always: true };
  return { approved: false, reason: REJECTED_REASON, cancelled: false };
}
