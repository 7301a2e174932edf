// What a question tool returns to the model: the answer's status in words the model can act on. A client that
// cannot show forms is an answer too ("unsupported"), not a failed tool call.
import { type ElicitationResult, ElicitationUnsupportedError } from '@acpkit/elicitation';

/**
 * The result of a question the model asked (`askUserTool()`, `formTool()`), as the model receives it.
 *
 * @example
 * ```ts
 * import type { QuestionToolResult } from '@acpkit/ai-sdk';
 *
 * const result: QuestionToolResult<string> = { status: 'accepted', answer: 'Production' };
 * ```
 */
export type QuestionToolResult<Answer> =
  | { readonly status: 'accepted'; readonly answer: Answer }
  | { readonly status: 'declined'; readonly message: string }
  | { readonly status: 'cancelled'; readonly message: string }
  | { readonly status: 'unsupported'; readonly message: string };

const DECLINED =
  'The user declined to answer. Do not ask the same question again; continue without the answer.';
const CANCELLED = 'The user dismissed the question without answering.';
const UNSUPPORTED =
  "The user's ACP client cannot show questions (no form elicitation). Continue without asking, or explain in " +
  'your reply what you need from the user.';

/** Runs one question and turns its result (or the client's lack of support) into the model's tool result. */
export async function askForModel<Answer>(
  ask: () => Promise<ElicitationResult<Answer>>,
): Promise<QuestionToolResult<Answer>> {
  let result: ElicitationResult<Answer>;
  try {
    result = await ask();
  } catch (error) {
    if (ElicitationUnsupportedError.isInstance(error)) return { status: 'unsupported', message: UNSUPPORTED };
    throw error;
  }
  switch (result.status) {
    case 'accepted':
      return { status: 'accepted', answer: result.value };
    case 'declined':
      return { status: 'declined', message: DECLINED };
    case 'cancelled':
      return { status: 'cancelled', message: CANCELLED };
  }
}

const MAX_TITLE_CHARACTERS = 200;

/** A tool-call title from text the model wrote: one line, at most 200 characters. */
export function titleFrom(prefix: string, text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  const title = `${prefix}${line}`;
  return title.length > MAX_TITLE_CHARACTERS ? `${title.slice(0, MAX_TITLE_CHARACTERS - 1)}…` : title;
}
