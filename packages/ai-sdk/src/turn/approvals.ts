// A tool call the AI SDK holds for approval (`needsApproval`) becomes one `session/request_permission` for the same
// tool call: allow once, allow always (remembered for the session by the caller), reject. Anything but an allow
// option the agent offered is a rejection: a tool never runs on an answer it cannot read.
import type { ElicitationClient } from '@acpkit/elicitation';
import { methods, type PermissionOption, RequestError, type ToolCallUpdate } from '@agentclientprotocol/sdk';

/** The options a permission request for a call of `toolName` offers, in this order. */
export function permissionOptions(toolName: string): PermissionOption[] {
  return [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'allow_always', name: `Always allow ${toolName} in this session`, kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  ];
}

/** What the user decided about one tool call. */
export type ApprovalDecision =
  | { readonly approved: true; readonly always: boolean }
  | { readonly approved: false; readonly reason: string; readonly cancelled: boolean };

/** What the model is told about a call the user rejected. */
export const REJECTED_REASON = 'The user rejected this tool call; it did not run.';
const CANCELLED_REASON = 'The user cancelled the turn before allowing this tool call; it did not run.';
const FAILED_REASON = 'The permission request failed, so this tool call did not run.';

function decisionFor(response: unknown): ApprovalDecision {
  const outcome = (response as { outcome?: { outcome?: unknown; optionId?: unknown } } | null)?.outcome;
  if (outcome?.outcome === 'cancelled') return { approved: false, reason: CANCELLED_REASON, cancelled: true };
  if (outcome?.outcome === 'selected') {
    if (outcome.optionId === 'allow_once') return { approved: true, always: false };
    if (outcome.optionId === 'allow_always') return { approved: true, always: true };
  }
  return { approved: false, reason: REJECTED_REASON, cancelled: false };
}

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
  if (signal.aborted) return { approved: false, reason: CANCELLED_REASON, cancelled: true };
  try {
    const response = await client.request(
      methods.client.session.requestPermission,
      { sessionId, toolCall, options: permissionOptions(toolName) },
      // Aborting sends `$/cancel_request` and stops waiting: a client that never answers cannot hold the turn.
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    return decisionFor(response);
  } catch (error) {
    if (signal.aborted) return { approved: false, reason: CANCELLED_REASON, cancelled: true };
    // The connection closed: the turn ends with it, nothing ran.
    if (!(error instanceof RequestError)) throw error;
    return { approved: false, reason: FAILED_REASON, cancelled: false };
  }
}
