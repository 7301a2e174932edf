// formTool({ description, schema }): the model asks the user to fill in a form compiled from a zod object schema
// (askForm) and gets the typed value back.
import { invalidOption } from '@acpkit/errors';
import { compileForm, type FormObjectSchema, type FormSchemaCheck } from '@acpkit/form-schema';
import type { Tool } from 'ai';
import { z } from 'zod';
import { askForModel, type QuestionToolResult, titleFrom } from './question-results.js';
import { sessionTool, type ToolCallContext, type ToolRuntime } from './session-tools.js';

const formToolInput = z.object({
  message: z
    .string()
    .min(1)
    .describe('What you ask the user to fill in and why, in one or two sentences; shown above the form.'),
});

/**
 * What the model passes to a tool made by {@link formTool}.
 *
 * @example
 * ```ts
 * import type { FormToolInput } from '@acpkit/ai-sdk';
 *
 * const input: FormToolInput = { message: 'Please fill in the release details.' };
 * ```
 */
export type FormToolInput = z.infer<typeof formToolInput>;

/**
 * Options of {@link formTool}.
 *
 * @example
 * ```ts
 * import type { FormToolOptions } from '@acpkit/ai-sdk';
 * import { z } from 'zod';
 *
 * const schema = z.object({ version: z.string().meta({ title: 'Version' }) });
 * const options: FormToolOptions<typeof schema> = { description: 'Ask for the release version.', schema };
 * ```
 */
export interface FormToolOptions<Form extends FormObjectSchema> {
  /** What the model is told the tool does (when to use it). */
  readonly description: string;
  /** The form: a flat zod object (see `askForm` in `@acpkit/elicitation` for what ACP forms can express). */
  readonly schema: Form & FormSchemaCheck<Form>;
  /** Title of the tool and of its calls in the client. Default `Form`. */
  readonly title?: string | undefined;
}

/**
 * An AI SDK tool that lets the model ask the user to fill in a form compiled from a zod object schema (`askForm`):
 * the model passes `{ message }`, the client shows the form, and the model gets
 * `{ status: 'accepted', answer }` (the value parsed by `schema`: defaults applied, choice fields mapped back to
 * their values), `{ status: 'declined' | 'cancelled', message }`, or `{ status: 'unsupported', message }` when
 * the client cannot show forms. The schema is compiled here, so a construct ACP forms cannot express fails now, not
 * when the model calls the tool.
 *
 * @throws `FormSchemaError` (from `@acpkit/form-schema`) for a schema ACP forms cannot express;
 * `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a blank description or title.
 * @example
 * ```ts
 * import { createAiSdkAgent, formTool } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 * import { z } from 'zod';
 *
 * declare const model: LanguageModel;
 * const settings = formTool({
 *   description: 'Ask the user for the deployment settings.',
 *   schema: z.object({
 *     replicas: z.int().min(1).max(5).default(2).meta({ title: 'Replicas' }),
 *     region: z.enum(['eu', 'us']).meta({ title: 'Region' }),
 *   }),
 * });
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'helper', version: '1.0.0', model, tools: { settings } });
 * ```
 */
export function formTool<Form extends FormObjectSchema>(
  options: FormToolOptions<Form>,
): Tool<FormToolInput, QuestionToolResult<z.output<Form>>> {
  const { description, schema, title = 'Form' } = options;
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalidOption('description', 'a non-empty string', description, { label: 'formTool description' });
  }
  if (typeof title !== 'string' || title.trim() === '') {
    throw invalidOption('title', 'a non-empty string', title, { label: 'formTool title' });
  }
  compileForm(schema);
  return sessionTool(
    {
      description,
      title,
      inputSchema: formToolInput,
      execute: ({ session }: ToolRuntime, input: FormToolInput, execution: ToolCallContext) =>
        askForModel(() =>
          session.askForm(input.message, schema, {
            toolCallId: execution.toolCallId,
            signal: execution.abortSignal,
          }),
        ),
      describe: (input) => ({
        title: titleFrom(`${title}: `, (input as Partial<FormToolInput> | undefined)?.message) ?? title,
        kind: 'other',
      }),
    },
    'formTool()',
  );
}
