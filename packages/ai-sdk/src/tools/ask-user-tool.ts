// askUserTool(): the model asks the user one question — pick one of its options (askChoice), or type an answer
// (askText) — and gets the answer back as its tool result.
import { invalidOption } from '@acpkit/errors';
import type { Tool } from 'ai';
import { z } from 'zod';
import { askForModel, type QuestionToolResult, titleFrom } from './question-results.js';
import { sessionTool, type ToolCallContext, type ToolRuntime } from './session-tools.js';

const askUserInput = z.object({
  question: z.string().min(1).describe('The question for the user, in one or two sentences.'),
  options: z
    .array(z.string().min(1))
    .min(2)
    .max(20)
    .optional()
    .describe('Answers the user picks one of. Leave it out to let the user type a free-text answer.'),
});

/**
 * What the model passes to the tool made by {@link askUserTool}.
 *
 * @example
 * ```ts
 * import type { AskUserInput } from '@acpkit/ai-sdk';
 *
 * const input: AskUserInput = { question: 'Which environment?', options: ['Staging', 'Production'] };
 * ```
 */
export type AskUserInput = z.infer<typeof askUserInput>;

/**
 * Options of {@link askUserTool}.
 *
 * @example
 * ```ts
 * import type { AskUserToolOptions } from '@acpkit/ai-sdk';
 *
 * const options: AskUserToolOptions = { description: 'Ask the release manager a question.' };
 * ```
 */
export interface AskUserToolOptions {
  /** What the model is told the tool does; the default explains when to use options. */
  readonly description?: string | undefined;
}

const DEFAULT_DESCRIPTION =
  'Ask the user a question and wait for the answer. Give `options` when the user should pick one of a few ' +
  'answers; leave them out for a free-text answer. Use it only when you cannot go on without the answer. The ' +
  'result has a `status`: "accepted" (with the `answer`), "declined", "cancelled" or "unsupported" (the client ' +
  'cannot show questions).';

function ask(
  { session }: ToolRuntime,
  input: AskUserInput,
  options: ToolCallContext,
): Promise<QuestionToolResult<string>> {
  const common = { toolCallId: options.toolCallId, signal: options.abortSignal };
  return askForModel(() =>
    input.options === undefined
      ? session.askText(input.question, common)
      : session.askChoice(
          input.question,
          input.options.map((option) => ({ value: option, label: option })),
          common,
        ),
  );
}

/**
 * An AI SDK tool that lets the model ask the user a question through the ACP client: with `options` a single-choice
 * form (`askChoice`; the answer is the option's text), without them a text field (`askText`). The model gets
 * `{ status: 'accepted', answer }`, `{ status: 'declined' | 'cancelled', message }`, or
 * `{ status: 'unsupported', message }` when the client cannot show forms — never an error for those. Put it in the
 * `tools` of {@link createAiSdkAgent}; run elsewhere it throws `AiSdkAgentError` `TOOL_OUTSIDE_SESSION`.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a `description` that is not a non-empty string.
 * @example
 * ```ts
 * import { askUserTool, createAiSdkAgent } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'helper', version: '1.0.0', model, tools: { askUser: askUserTool() } });
 * ```
 */
export function askUserTool(
  options: AskUserToolOptions = {},
): Tool<AskUserInput, QuestionToolResult<string>> {
  const description = options.description ?? DEFAULT_DESCRIPTION;
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalidOption('description', 'a non-empty string', description, {
      label: 'askUserTool description',
    });
  }
  return sessionTool(
    {
      description,
      title: 'Ask the user',
      inputSchema: askUserInput,
      execute: ask,
      describe: (input) => ({
        title: titleFrom('Ask: ', (input as Partial<AskUserInput> | undefined)?.question),
        kind: 'other',
      }),
    },
    'askUserTool()',
  );
}
