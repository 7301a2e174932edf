import {
  type ElicitationContentIssue,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
  parseElicitationAction,
  validateQuestion,
} from '@acpkit/choice-schema';
import { z } from 'zod';
import { compileForm, type FormRequestedSchema } from './compile-form.js';
import type { FormObjectSchema, FormSchemaCheck } from './form-types.js';

/**
 * Params of the `elicitation/create` request for a form: form mode, session scope. Local types, assignable to the
 * SDK's `CreateElicitationRequest`.
 *
 * @example
 * ```ts
 * import { compileFormElicitation, type FormElicitationParams } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const params: FormElicitationParams = compileFormElicitation({
 *   sessionId: 's1',
 *   message: 'Release details',
 *   schema: z.object({ version: z.string() }),
 * });
 * ```
 */
export interface FormElicitationParams {
  sessionId: string;
  toolCallId?: string;
  mode: 'form';
  /** The message, verbatim (untrimmed). */
  message: string;
  requestedSchema: Readonly<FormRequestedSchema>;
}

/**
 * Input of {@link compileFormElicitation}.
 *
 * @example
 * ```ts
 * import type { CompileFormElicitationInput } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const schema = z.object({ version: z.string() });
 * const input: CompileFormElicitationInput<typeof schema> = { sessionId: 's1', message: 'Release details', schema };
 * ```
 */
export interface CompileFormElicitationInput<Form extends FormObjectSchema> {
  /** The ACP session the form belongs to. */
  readonly sessionId: string;
  /** Optional tool call the form belongs to. */
  readonly toolCallId?: string | undefined;
  /** What the form is for; must not be blank after `trim()`. */
  readonly message: string;
  /** The zod object schema; compiled once per schema object. */
  readonly schema: Form & FormSchemaCheck<Form>;
}

/**
 * What a client's answer to a form means: the parsed, typed value on `accept`, or `declined` / `cancelled`.
 *
 * @example
 * ```ts
 * import type { ParsedFormResponse } from '@acpkit/form-schema';
 *
 * const parsed: ParsedFormResponse<{ version: string }> = { status: 'accepted', value: { version: '1.5.0' } };
 * ```
 */
export type ParsedFormResponse<Value> =
  | { readonly status: 'accepted'; readonly value: Value }
  | { readonly status: 'declined' }
  | { readonly status: 'cancelled' };

/**
 * Validates the message, compiles the schema (see `compileForm`) and returns the params of an ACP
 * `elicitation/create` request in form mode. Pure: nothing is sent.
 *
 * @throws `ChoiceValidationError` (from `@acpkit/choice-schema`) with code `BLANK_QUESTION` for a blank message.
 * @throws `FormSchemaError` when the schema uses a construct ACP forms cannot express.
 * @example
 * ```ts
 * import { compileFormElicitation } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const params = compileFormElicitation({
 *   sessionId: 'session-1',
 *   message: 'Release details',
 *   schema: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/), notify: z.boolean().default(true) }),
 * });
 * params.requestedSchema.required; // ['version']
 * ```
 */
export function compileFormElicitation<Form extends FormObjectSchema>(
  input: CompileFormElicitationInput<Form>,
): FormElicitationParams {
  const { sessionId, toolCallId, message, schema } = input;
  validateQuestion(message);
  const { requestedSchema } = compileForm(schema);
  const params = { sessionId } as FormElicitationParams;
  if (toolCallId !== undefined) params.toolCallId = toolCallId;
  params.mode = 'form';
  params.message = message;
  params.requestedSchema = requestedSchema;
  return params;
}

const MAX_ISSUES_IN_MESSAGE = 3;
const MAX_ISSUE_MESSAGE_LENGTH = 200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeIssues(issues: readonly ElicitationContentIssue[]): string {
  const described = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => {
    const where = issue.path.length === 0 ? 'content' : issue.path.map(String).join('.');
    const text =
      issue.message.length > MAX_ISSUE_MESSAGE_LENGTH
        ? `${issue.message.slice(0, MAX_ISSUE_MESSAGE_LENGTH)}…`
        : issue.message;
    return `${JSON.stringify(where)}: ${text}`;
  });
  const more = issues.length - described.length;
  return described.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function invalidContent(response: unknown, issues: readonly ElicitationContentIssue[], cause?: unknown) {
  return new InvalidElicitationResponseError(
    InvalidElicitationResponseErrorCode.InvalidContent,
    `The ACP client accepted the form with content that does not match it: ${describeIssues(issues)}`,
    response,
    { issues, cause },
  );
}

/**
 * Parses the client's answer to a form with the form's own zod schema. `accept` → the parsed value (defaults
 * applied, transforms and refinements run, choice tokens mapped back to the offered values); its `content` is
 * read for the schema's properties only (other keys are ignored; absent or `null` content counts as no answers).
 * Nothing is coerced: a value of the wrong type is an invalid answer. `decline` / `cancel` map to their statuses.
 * Asynchronous refinements are awaited.
 *
 * @throws `InvalidElicitationResponseError` (from `@acpkit/choice-schema`) with code `INVALID_CONTENT` (zod's issues
 * in `issues`, the `ZodError` as `cause`, the raw content in `content`) or `UNSUPPORTED_ACTION`.
 * @example
 * ```ts
 * import { parseFormResponse } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * const schema = z.object({ replicas: z.int().min(1).default(2) });
 * const parsed = await parseFormResponse({ action: 'accept', content: {} }, schema);
 * if (parsed.status === 'accepted') console.log(parsed.value.replicas); // 2
 * ```
 */
export async function parseFormResponse<Form extends FormObjectSchema>(
  response: unknown,
  schema: Form & FormSchemaCheck<Form>,
): Promise<ParsedFormResponse<z.output<Form>>> {
  const form = compileForm(schema);
  const action = parseElicitationAction(response);
  if (action.action === 'decline') return { status: 'declined' };
  if (action.action === 'cancel') return { status: 'cancelled' };
  const content = action.content ?? {};
  if (!isRecord(content)) {
    throw invalidContent(response, [
      { code: 'invalid_type', path: [], message: 'Form content must be an object of answers' },
    ]);
  }
  // Only the form's own properties reach the schema: extra keys are ignored (as askChoice ignores them), whatever
  // the object's unknown-key mode, and never end up in the value.
  const answers: Record<string, unknown> = {};
  for (const name of form.fieldNames) {
    if (Object.hasOwn(content, name)) answers[name] = content[name];
    else if (Object.hasOwn(form.defaultTokens, name)) answers[name] = form.defaultTokens[name];
  }
  const result = await z.safeParseAsync(form.schema, answers);
  if (!result.success) throw invalidContent(response, result.error.issues, result.error);
  return { status: 'accepted', value: result.data as z.output<Form> };
}
