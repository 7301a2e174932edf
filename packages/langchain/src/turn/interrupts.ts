// The graph paused with `interrupt(value)`: each pending interrupt becomes an ACP request and its answer the value
// the graph resumes with (`new Command({ resume })`).
// - humanInTheLoopMiddleware's request (`{ actionRequests, reviewConfigs }`): one `session/request_permission` per
//   action (allow once, allow always for the session, edit the arguments as a typed form when the client can show
//   forms and the tool's arguments fit one, reject), answered with the middleware's `{ decisions }`.
// - A question (`interrupt({ question, choices })`, `{ question, schema }`, `{ question }` or a plain string):
//   askChoice / askForm / askText, answered with a QuestionResult.
// Anything else fails the turn with a message that says which shapes work.
import {
  type AcpSessionContext,
  askForOutcome,
  type ElicitationResult,
  type QuestionOutcome,
  requestToolPermission,
  toolPermissionOptions,
} from '@acpkit/elicitation';
import { RequestError } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { ToolCalls } from './tool-calls.js';

/** A pending interrupt of the graph (`Interrupt` of @langchain/langgraph). */
export interface PendingInterrupt {
  readonly id: string | undefined;
  readonly value: unknown;
  /** The graph namespace it came from ('' for the root). */
  readonly namespace: string;
}

/**
 * What a graph's `interrupt({ question, … })` returns once the user answered (or could not): the `QuestionOutcome`
 * of `@acpkit/elicitation`, as the AI SDK adapter's question tools return it.
 *
 * @example
 * ```ts
 * import type { QuestionResult } from '@acpkit/langchain';
 * import { interrupt } from '@langchain/langgraph';
 *
 * const answer = interrupt({ question: 'Which environment?', choices: ['staging', 'production'] }) as QuestionResult<string>;
 * const environment = answer.status === 'accepted' ? answer.answer : 'staging';
 * ```
 */
export type QuestionResult<Answer = unknown> = QuestionOutcome<Answer>;

/** What the graph reads when there is no answer. */
const GRAPH_MESSAGES = {
  declined: 'The user declined to answer.',
  cancelled: 'The user dismissed the question without answering.',
  unsupported:
    "The user's ACP client cannot show questions (no form elicitation); continue without the answer.",
} as const;
/** What the model reads for a call the user rejected (the middleware's ToolMessage). */
export const REJECTED_MESSAGE = 'The user rejected this tool call; it did not run.';

interface ActionRequest {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly description?: string;
}
interface ReviewConfig {
  readonly actionName: string;
  readonly allowedDecisions: readonly string[];
  readonly argsSchema?: Record<string, unknown>;
}
type Decision =
  | { type: 'approve' }
  | { type: 'reject'; message: string }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } };

function isHitlRequest(
  value: unknown,
): value is { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { actionRequests?: unknown }).actionRequests) &&
    Array.isArray((value as { reviewConfigs?: unknown }).reviewConfigs)
  );
}

/** A zod object schema (v4): what askForm takes. */
function isZodObject(value: unknown): value is z.ZodObject {
  return value instanceof z.ZodObject;
}

/** The tool's arguments as a form schema, with the model's arguments as defaults; `undefined` when none fits. */
function editSchema(schema: unknown, args: Record<string, unknown>): z.ZodObject | undefined {
  let object: z.ZodObject | undefined;
  try {
    if (isZodObject(schema)) object = schema;
    else if (typeof schema === 'object' && schema !== null) {
      const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      if (isZodObject(converted)) object = converted;
    }
  } catch {
    return undefined;
  }
  if (object === undefined) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(object.shape)) {
    const value = args[key];
    shape[key] = value === undefined ? (field as z.ZodType) : (field as z.ZodType).default(value as never);
  }
  return z.object(shape);
}

/** Answers the graph's interrupts of one pause. */
export class InterruptAnswers {
  readonly #session: AcpSessionContext;
  readonly #calls: ToolCalls;
  readonly #alwaysAllowed: Set<string>;
  readonly #toolSchemas: ReadonlyMap<string, unknown>;
  readonly #signal: AbortSignal;

  constructor(
    session: AcpSessionContext,
    calls: ToolCalls,
    alwaysAllowed: Set<string>,
    toolSchemas: ReadonlyMap<string, unknown>,
    signal: AbortSignal,
  ) {
    this.#session = session;
    this.#calls = calls;
    this.#alwaysAllowed = alwaysAllowed;
    this.#toolSchemas = toolSchemas;
    this.#signal = signal;
  }

  /**
   * The resume value for each interrupt, keyed by interrupt id (one value when an interrupt has no id); `undefined`
   * when the turn was cancelled meanwhile (the graph stays paused; the next prompt starts afresh).
   *
   * @throws `RequestError` -32603 for an interrupt value this agent cannot ask about.
   */
  async answer(pending: readonly PendingInterrupt[]): Promise<unknown | undefined> {
    const byId: Record<string, unknown> = {};
    for (const interrupt of pending) {
      const value = isHitlRequest(interrupt.value)
        ? await this.#review(interrupt.value, interrupt.namespace)
        : await this.#question(interrupt.value);
      if (value === undefined || this.#signal.aborted) return undefined;
      if (interrupt.id === undefined) return value;
      byId[interrupt.id] = value;
    }
    return byId;
  }

  async #review(
    request: { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] },
    namespace: string,
  ): Promise<{ decisions: Decision[] } | undefined> {
    const decisions: Decision[] = [];
    const taken = new Set<string>();
    for (const [index, action] of request.actionRequests.entries()) {
      const review =
        request.reviewConfigs.find((config) => config.actionName === action.name) ??
        request.reviewConfigs[index];
      const allowed = new Set(review?.allowedDecisions ?? ['approve', 'reject']);
      const toolCallId = this.#calls.findOpen(action.name, namespace, taken);
      if (toolCallId !== undefined) taken.add(toolCallId);
      const decision = await this.#decide(action, allowed, review, toolCallId);
      if (decision === undefined) return undefined;
      if (decision.type === 'reject' && toolCallId !== undefined) {
        await this.#sendAll(this.#calls.failed(toolCallId, decision.message));
      }
      decisions.push(decision);
    }
    return { decisions };
  }

  async #decide(
    action: ActionRequest,
    allowed: ReadonlySet<string>,
    review: ReviewConfig | undefined,
    toolCallId: string | undefined,
  ): Promise<Decision | undefined> {
    if (allowed.has('approve') && this.#alwaysAllowed.has(action.name)) return { type: 'approve' };
    const form =
      allowed.has('edit') && this.#session.supportsElicitation('form')
        ? editSchema(review?.argsSchema ?? this.#toolSchemas.get(action.name), action.args)
        : undefined;
    const options = toolPermissionOptions(action.name, {
      allow: allowed.has('approve'),
      reject: allowed.has('reject'),
      extra:
        form === undefined
          ? []
          : [{ optionId: 'edit', name: 'Edit the arguments, then run', kind: 'allow_once' }],
    });
    if (options.length === 0) {
      throw RequestError.internalError(
        { tool: action.name, allowedDecisions: [...allowed] },
        `the graph asks to review ${action.name} but allows only decisions this client cannot give ` +
          `(${[...allowed].join(', ')}; editing needs form elicitation); allow approve or reject for this tool`,
      );
    }
    const answer = await requestToolPermission(this.#session.client, {
      sessionId: this.#session.sessionId,
      toolCall:
        toolCallId === undefined
          ? { toolCallId: `review-${action.name}`, title: action.name, rawInput: action.args }
          : this.#calls.permissionSubject(toolCallId),
      options,
      signal: this.#signal,
    });
    if (answer.outcome === 'cancelled') return undefined;
    // The client failed the request: nothing runs on an answer nobody gave.
    if (answer.outcome === 'failed')
      return { type: 'reject', message: 'The permission request failed, so this tool call did not run.' };
    const optionId = answer.outcome === 'selected' ? answer.optionId : undefined;
    if (optionId === 'allow_once' && allowed.has('approve')) return { type: 'approve' };
    if (optionId === 'allow_always' && allowed.has('approve')) {
      this.#alwaysAllowed.add(action.name);
      return { type: 'approve' };
    }
    if (optionId === 'edit' && form !== undefined) {
      const result = await this.#ask(() =>
        this.#session.askForm(`Edit the arguments of ${action.name}`, form as never, {
          signal: this.#signal,
          ...(toolCallId === undefined ? {} : { toolCallId }),
        }),
      );
      if (this.#signal.aborted) return undefined;
      if (result.status === 'accepted') {
        return {
          type: 'edit',
          editedAction: { name: action.name, args: result.answer as Record<string, unknown> },
        };
      }
      return {
        type: 'reject',
        message: `The user did not confirm edited arguments (${result.status}); the call did not run.`,
      };
    }
    if (!allowed.has('reject')) return { type: 'approve' };
    return { type: 'reject', message: REJECTED_MESSAGE };
  }

  async #question(value: unknown): Promise<QuestionResult | undefined> {
    const question = typeof value === 'string' ? value : questionText(value);
    if (question === undefined) {
      throw RequestError.internalError(
        { interrupt: describe(value) },
        'the graph paused with interrupt(value) whose value this agent cannot ask about; use a string, ' +
          '{ question, choices }, { question, schema } or humanInTheLoopMiddleware',
      );
    }
    const { choices, schema } = (typeof value === 'object' && value !== null ? value : {}) as {
      choices?: unknown;
      schema?: unknown;
    };
    const options = { signal: this.#signal };
    let result: QuestionResult;
    if (Array.isArray(choices)) {
      const offered = choices.map((choice) =>
        typeof choice === 'object' && choice !== null && 'value' in choice
          ? {
              label: String((choice as { label?: unknown }).label ?? (choice as { value: unknown }).value),
              value: (choice as { value: unknown }).value,
              ...((choice as { description?: unknown }).description === undefined
                ? {}
                : { description: String((choice as { description?: unknown }).description) }),
            }
          : { label: String(choice), value: choice },
      );
      result = await this.#ask(() => this.#session.askChoice(question, offered, options));
    } else if (schema !== undefined) {
      const form = editSchema(schema, {});
      if (form === undefined) {
        throw RequestError.internalError(
          { interrupt: describe(value) },
          'the graph asked a question whose schema is not a flat object (a zod object or a JSON Schema object)',
        );
      }
      result = await this.#ask(() => this.#session.askForm(question, form as never, options));
    } else {
      result = await this.#ask(() => this.#session.askText(question, options));
    }
    return this.#signal.aborted ? undefined : result;
  }

  #ask(ask: () => Promise<ElicitationResult<unknown>>): Promise<QuestionResult> {
    return askForOutcome(ask, GRAPH_MESSAGES);
  }

  async #sendAll(updates: readonly import('@agentclientprotocol/sdk').SessionUpdate[]): Promise<void> {
    for (const update of updates) await this.#session.update(update);
  }
}

function questionText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { question, message } = value as { question?: unknown; message?: unknown };
  if (typeof question === 'string' && question.trim() !== '') return question;
  if (typeof message === 'string' && message.trim() !== '') return message;
  return undefined;
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 200 ? `${text.slice(0, 199)}…` : text;
  } catch {
    return String(value);
  }
}
