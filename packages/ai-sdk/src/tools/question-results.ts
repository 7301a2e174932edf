// What a question tool returns to the model: the answer's status in words the model can act on. A client that
// cannot show forms is an answer too ("unsupported"), not a failed tool call.
import { askForOutcome, type ElicitationResult, type QuestionOutcome } from '@acpkit/elicitation';

/**
 * The result of a question the model asked (`askUserTool()`, `formTool()`), as the model receives it: the
 * `QuestionOutcome` of `@acpkit/elicitation` (which the LangChain adapter's interrupts answer with too).
 *
 * @example
 * ```ts
 * import type { QuestionToolResult } from '@acpkit/ai-sdk';
 *
 * const result: QuestionToolResult<string> = { status: 'accepted', answer: 'Production' };
 * ```
 */
export type QuestionToolResult<Answer> = QuestionOutcome<Answer>;

/** What the model reads when there is no answer: words it can act on. */
const MODEL_MESSAGES = {
  declined: 'The user declined to answer. Do not ask the same question again; continue without the answer.',
  cancelled: 'The user dismissed the question without answering.',
  unsupported:
    "The user's ACP client cannot show questions (no form elicitation). Continue without asking, or explain in " +
    'your reply what you need from the user.',
} as const;

/** Runs one question and turns its result (or the client's lack of support) into the model's tool result. */
export function askForModel<Answer>(
  ask: () => Promise<ElicitationResult<Answer>>,
): Promise<QuestionToolResult<Answer>> {
  return askForOutcome(ask, MODEL_MESSAGES);
}

const MAX_TITLE_CHARACTERS = 200;

/** A tool-call title from text the model wrote: one line, at most 200 characters. */
export function titleFrom(prefix: string, text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  const title = `${prefix}${line}`;
  return title.length > MAX_TITLE_CHARACTERS ? `${title.slice(0, MAX_TITLE_CHARACTERS - 1)}…` : title;
}
