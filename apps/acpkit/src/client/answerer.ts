import type { FormElicitationRequest } from '@acpkit/testing/internal';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';

export type { FormElicitationRequest };
/** A URL-mode `elicitation/create` request. */
export type UrlElicitationRequest = Extract<CreateElicitationRequest, { mode: 'url' }>;

/**
 * Answers what the agent asks during a turn. The terminal client has two: one that asks the person with prompts,
 * and one that answers without asking (defaults for `--yes` and non-TTY runs, or the scripted `--answer`,
 * `--answers`, `--decline`, `--cancel`). Each call runs alone (the client serialises them) and must return when
 * `signal` aborts (the agent withdrew the request or the connection ended); `answerForm` throws only a
 * `ScriptedAnswerError`, for a script that does not fit the form.
 */
export interface Answerer {
  /** Answers a form: accept with content, decline, or cancel. */
  answerForm(request: FormElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
  /** Asks consent for a URL: accept means the person will open it themselves; the client never opens it. */
  answerUrl(request: UrlElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
  /** After an accepted URL: waits for `elicitation/complete` (`completed` aborts) or the person's manual continue. */
  waitForUrlCompletion(request: UrlElicitationRequest, completed: AbortSignal): Promise<void>;
  /** Answers `session/request_permission` with one of the offered options, or cancelled. */
  answerPermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
}
