// The agent's side of a tool-call permission request (`session/request_permission`), as both adapters ask it: the
// standard options (allow once, allow always for the session, reject), and one request whose answer is read
// defensively. A cancelled turn, a cancelled request and a failed one are answers too: a tool never runs on an answer
// nobody gave, and a client that never answers cannot hold the turn.
import { methods, type PermissionOption, RequestError, type ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ElicitationClient } from './session-context.js';

/**
 * The options of a permission request for a call of `toolName`, in this order: `allow_once`, `allow_always` ("Always
 * allow <tool> in this session") and `reject_once`. `allow: false` leaves the two allow options out, `reject: false`
 * the reject option; `extra` options go between them (an "edit the arguments" option, say).
 *
 * @example
 * ```ts
 * import { toolPermissionOptions } from '@acpkit/elicitation';
 *
 * toolPermissionOptions('deploy').map((option) => option.optionId); // ['allow_once', 'allow_always', 'reject_once']
 * ```
 */
export function toolPermissionOptions(
  toolName: string,
  options: {
    readonly allow?: boolean | undefined;
    readonly reject?: boolean | undefined;
    readonly extra?: readonly PermissionOption[] | undefined;
  } = {},
): PermissionOption[] {
  const { allow = true, reject = true, extra = [] } = options;
  return [
    ...(allow
      ? [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' } as const,
          {
            optionId: 'allow_always',
            name: `Always allow ${toolName} in this session`,
            kind: 'allow_always',
          } as const,
        ]
      : []),
    ...extra,
    ...(reject ? [{ optionId: 'reject_once', name: 'Reject', kind: 'reject_once' } as const] : []),
  ];
}

/**
 * How a permission request ended: an option the user selected (`optionId`, whatever the client sent: check it
 * against the options offered), `cancelled` (the user dismissed it, or the turn was cancelled), `failed` (the client
 * answered with a JSON-RPC error) or `invalid` (an answer that names no option: treat it as a rejection).
 *
 * @example
 * ```ts
 * import type { ToolPermissionOutcome } from '@acpkit/elicitation';
 *
 * const approved = (outcome: ToolPermissionOutcome) => outcome.outcome === 'selected' && outcome.optionId === 'allow_once';
 * ```
 */
export type ToolPermissionOutcome =
  | { readonly outcome: 'selected'; readonly optionId: string }
  | { readonly outcome: 'cancelled' }
  | { readonly outcome: 'failed' }
  | { readonly outcome: 'invalid' };

/**
 * Asks the client whether a tool call may run (`session/request_permission`). Never rejects for the client's sake:
 * a cancelled `signal` (session/cancel) is `cancelled` and also cancels the request (`$/cancel_request`, without
 * waiting for the client); a JSON-RPC error is `failed`, an answer it cannot read `invalid`. Only a closed
 * connection rejects.
 *
 * @example
 * ```ts
 * import { requestToolPermission, toolPermissionOptions, type ElicitationClient } from '@acpkit/elicitation';
 *
 * declare const client: ElicitationClient;
 * const outcome = await requestToolPermission(client, {
 *   sessionId: 's-1',
 *   toolCall: { toolCallId: 'call-1', title: 'deploy' },
 *   options: toolPermissionOptions('deploy'),
 *   signal: AbortSignal.timeout(60_000),
 * });
 * ```
 */
export async function requestToolPermission(
  client: ElicitationClient,
  request: {
    readonly sessionId: string;
    readonly toolCall: ToolCallUpdate;
    readonly options: readonly PermissionOption[];
    readonly signal: AbortSignal;
  },
): Promise<ToolPermissionOutcome> {
  const { sessionId, toolCall, options, signal } = request;
  if (signal.aborted) return { outcome: 'cancelled' };
  let response: unknown;
  try {
    response = await client.request(
      methods.client.session.requestPermission,
      { sessionId, toolCall, options },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
  } catch (error) {
    if (signal.aborted) return { outcome: 'cancelled' };
    // A closed connection ends the turn with it: nothing ran.
    if (!(error instanceof RequestError)) throw error;
    return { outcome: 'failed' };
  }
  const outcome = (response as { outcome?: { outcome?: unknown; optionId?: unknown } } | null)?.outcome;
  if (outcome?.outcome === 'cancelled') return { outcome: 'cancelled' };
  if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string') {
    return { outcome: 'selected', optionId: outcome.optionId };
  }
  return { outcome: 'invalid' };
}
