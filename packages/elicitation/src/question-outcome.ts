// A question an agent asks on behalf of something that cannot talk to the client itself (a model's tool, a graph's
// interrupt): its ElicitationResult, or the client's lack of support, as one plain value with words to act on.
import { ElicitationUnsupportedError } from './errors.js';
import type { ElicitationResult } from './results.js';

/**
 * How a question ended, as a model or a graph receives it: the answer, or why there is none in words it can act on.
 * A client that cannot show the question is an outcome too (`unsupported`), not an error.
 *
 * @example
 * ```ts
 * import type { QuestionOutcome } from '@acpkit/elicitation';
 *
 * const outcome: QuestionOutcome<string> = { status: 'accepted', answer: 'Production' };
 * ```
 */
export type QuestionOutcome<Answer = unknown> =
  | { readonly status: 'accepted'; readonly answer: Answer }
  | { readonly status: 'declined'; readonly message: string }
  | { readonly status: 'cancelled'; readonly message: string }
  | { readonly status: 'unsupported'; readonly message: string };

/**
 * The words {@link askForOutcome} puts in `message` for each status without an answer.
 *
 * @example
 * ```ts
 * import type { QuestionOutcomeMessages } from '@acpkit/elicitation';
 *
 * const messages: QuestionOutcomeMessages = { declined: 'No.', cancelled: 'Dismissed.', unsupported: 'No forms.' };
 * ```
 */
export interface QuestionOutcomeMessages {
  readonly declined: string;
  readonly cancelled: string;
  readonly unsupported: string;
}

/**
 * Runs one question (`askChoice`, `askForm`, `askText` of an `AcpSessionContext`) and returns its outcome: the
 * answer, or the status with `messages`' words. `ElicitationUnsupportedError` becomes `unsupported`; other errors
 * (a closed connection) reject.
 *
 * @example
 * ```ts
 * import { askForOutcome, type AcpSessionContext } from '@acpkit/elicitation';
 *
 * declare const session: AcpSessionContext;
 * const outcome = await askForOutcome(() => session.askText('Which branch?'), {
 *   declined: 'The user declined to answer.',
 *   cancelled: 'The user dismissed the question.',
 *   unsupported: 'The client cannot show questions.',
 * });
 * ```
 */
export async function askForOutcome<Answer>(
  ask: () => Promise<ElicitationResult<Answer>>,
  messages: QuestionOutcomeMessages,
): Promise<QuestionOutcome<Answer>> {
  let result: ElicitationResult<Answer>;
  try {
    result = await ask();
  } catch (error) {
    if (ElicitationUnsupportedError.isInstance(error))
      return { status: 'unsupported', message: messages.unsupported };
    throw error;
  }
  switch (result.status) {
    case 'accepted':
      return { status: 'accepted', answer: result.value };
    case 'declined':
      return { status: 'declined', message: messages.declined };
    default:
      return { status: 'cancelled', message: messages.cancelled };
  }
}
