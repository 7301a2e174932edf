import {
  compileChoiceElicitation,
  type ElicitationChoice,
  type ExactChoice,
  parseChoiceResponse,
} from '@acpkit/choice-schema';
import {
  choicesField,
  compileFormElicitation,
  type FormObjectSchema,
  type FormSchemaCheck,
  parseFormResponse,
} from '@acpkit/form-schema';
import type {
  ClientCapabilities,
  CreateElicitationResponse,
  SendRequestOptions,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type {
  AskChoiceOptions,
  AskChoicesOptions,
  AskConfirmOptions,
  AskFieldText,
  AskFormOptions,
  AskTextOptions,
} from './ask-options.js';
import { connectionContextOf } from './connection-context.js';
import type { ElicitationFormProperty, ElicitationMode } from './elicitation-mode.js';
import {
  ClientCapabilitiesNotRecordedError,
  ElicitationConnectionClosedError,
  ElicitationScopeError,
  ElicitationUnsupportedError,
} from './errors.js';
import {
  type ElicitationFallback,
  resolveFallback,
  resolveFallbackResult,
  resolveFallbackResults,
} from './fallback.js';
import {
  ElicitationAccepted,
  ElicitationCancelled,
  ElicitationDeclined,
  type ElicitationResult,
} from './results.js';

const ELICITATION_CREATE = 'elicitation/create';
const ELICITATION_COMPLETE = 'elicitation/complete';
const SESSION_UPDATE = 'session/update';
const METHOD_NOT_FOUND = -32601;
const REQUEST_CANCELLED = -32800;

/**
 * The part of the SDK's `AgentContext` this package uses (the `client` of an agent handler or of an
 * `AgentConnection`). Declared structurally so contexts of the stable and the `/unstable` entrypoint both fit.
 *
 * @example
 * ```ts
 * import type { ElicitationClient } from '@acpkit/elicitation';
 * import type { AgentContext } from '@agentclientprotocol/sdk';
 *
 * const asClient = (context: AgentContext): ElicitationClient => context;
 * ```
 */
export interface ElicitationClient {
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown>;
  notify(method: string, params?: unknown): Promise<void>;
}

/**
 * What {@link AcpSessionContext.supportsElicitation} accepts: a mode name or a mode object.
 *
 * @example
 * ```ts
 * import type { ElicitationModeSelector } from '@acpkit/elicitation';
 *
 * const selectors: ElicitationModeSelector[] = ['form', 'url', { mode: 'form' }];
 * ```
 */
export type ElicitationModeSelector = 'form' | 'url' | { readonly mode: string };

/**
 * Options of {@link AcpSessionContext}.
 *
 * @example
 * ```ts
 * import { AcpSessionContext, type AcpSessionContextOptions } from '@acpkit/elicitation';
 * import type { AgentContext } from '@agentclientprotocol/sdk';
 *
 * declare const client: AgentContext;
 * const options: AcpSessionContextOptions = { sessionId: 's1', client, clientCapabilities: { elicitation: { form: {} } } };
 * const session = new AcpSessionContext(options);
 * ```
 */
export interface AcpSessionContextOptions {
  /** The ACP session this context asks questions in. */
  readonly sessionId: string;
  /** The SDK's `AgentContext` (`client` of a handler context or of an `AgentConnection`). */
  readonly client: ElicitationClient;
  /**
   * `params.clientCapabilities` exactly as received in `initialize` (`null` or `{}`: nothing is supported).
   * `undefined` means none were recorded: the `ask*` methods and `createElicitation` then throw
   * `ClientCapabilitiesNotRecordedError` instead of guessing.
   */
  readonly clientCapabilities?: ClientCapabilities | null | undefined;
  /**
   * The turn's signal (a prompt handler's `context.signal`): when it aborts, the turn is cancelled (see
   * {@link AcpSessionContext.signal}). `acpSessions().sessionFor(context)` passes it, joined with `session/cancel`.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Options of {@link AcpSessionContext.createElicitation}.
 *
 * @example
 * ```ts
 * import type { CreateElicitationOptions } from '@acpkit/elicitation';
 *
 * const options: CreateElicitationOptions = { signal: new AbortController().signal };
 * ```
 */
export interface CreateElicitationOptions {
  /** Aborting sends `$/cancel_request` and rejects with `signal.reason`. */
  readonly signal?: AbortSignal | undefined;
  /** Tool call the elicitation belongs to; used when a session-scoped `mode` names none. */
  readonly toolCallId?: string | undefined;
}

/** Lets `AcpSessions` cancel a turn it handed out, without a public `cancel()` on every session context. */
let cancelTurnOf: (session: AcpSessionContext, reason: unknown) => void;

/**
 * Cancels the turn of `session` (internal to this package: `AcpSessions` calls it on `session/cancel`): its `signal`
 * aborts with `reason`, pending questions resolve cancelled, later ones resolve cancelled without being sent.
 */
export function cancelTurn(session: AcpSessionContext, reason: unknown): void {
  cancelTurnOf(session, reason);
}

type SendOutcome =
  | { readonly kind: 'response'; readonly response: unknown }
  | { readonly kind: 'session-cancelled' }
  | { readonly kind: 'client-cancelled'; readonly error: RequestError }
  | { readonly kind: 'method-not-found'; readonly error: RequestError };

/** A JSON-RPC error answer; also one from another copy of the SDK. */
export function isRequestError(error: unknown): error is RequestError {
  // Also recognises a RequestError from another copy of the SDK.
  return (
    error instanceof RequestError ||
    (error instanceof Error &&
      error.name === 'RequestError' &&
      typeof (error as RequestError).code === 'number')
  );
}

/** A result from what the client answered (`source: 'client'`). */
function clientResult<Value>(
  parsed:
    | { readonly status: 'declined' | 'cancelled' }
    | { readonly status: 'accepted'; readonly value: Value },
): ElicitationResult<Value> {
  switch (parsed.status) {
    case 'accepted':
      return new ElicitationAccepted(parsed.value, 'client');
    case 'declined':
      return new ElicitationDeclined('client');
    case 'cancelled':
      return new ElicitationCancelled('client');
  }
}

/** Applies a helper's title (or its default) and description to its one field. */
function describeField<Field extends z.ZodType>(
  field: Field,
  text: AskFieldText,
  defaultTitle: string,
): Field {
  const metadata: { title: string; description?: string } = { title: text.title ?? defaultTitle };
  if (text.description !== undefined) metadata.description = text.description;
  return field.meta(metadata);
}

/** The field `askText` sends: `z.string()` with the options as checks. */
function textField(options: AskTextOptions): z.ZodType<string> {
  let field: z.ZodString | z.ZodStringFormat = z.string();
  if (options.format === 'email') field = z.email();
  else if (options.format === 'uri') field = z.url();
  else if (options.format === 'date') field = z.iso.date();
  else if (options.format === 'date-time') field = z.iso.datetime({ offset: true });
  if (options.minLength !== undefined) field = field.min(options.minLength);
  if (options.maxLength !== undefined) field = field.max(options.maxLength);
  if (options.pattern !== undefined) {
    field = field.regex(
      typeof options.pattern === 'string' ? new RegExp(options.pattern, 'u') : options.pattern,
    );
  }
  return describeField(
    options.default === undefined ? field : field.default(options.default),
    options,
    'Answer',
  );
}

/** The property the one-field helpers ask in (FastMCP wraps scalar answers the same way). */
const VALUE_PROPERTY = 'value';

function modeName(mode: ElicitationModeSelector): string {
  return typeof mode === 'string' ? mode : String(mode?.mode);
}

/**
 * One ACP session as seen by an agent: asks the connected client typed questions. Build it with
 * `new AcpSessionContext({ sessionId, client, clientCapabilities })`, or get it from `acpSessions().sessionFor(...)`
 * inside a prompt handler (which also wires `session/cancel`).
 *
 * @example
 * ```ts
 * import { AcpSessionContext } from '@acpkit/elicitation';
 * import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
 *
 * async function pickTarget(client: AgentContext, sessionId: string, clientCapabilities?: ClientCapabilities) {
 *   const session = new AcpSessionContext({ sessionId, client, clientCapabilities });
 *   const result = await session.askChoice('Choose a deployment target', [
 *     { value: 'preview', label: 'Preview' },
 *     { value: 'production', label: 'Production', default: true },
 *   ] as const);
 *   return result.status === 'accepted' ? result.value : undefined;
 * }
 * ```
 */
export class AcpSessionContext {
  /** The ACP session id. */
  readonly sessionId: string;
  /** The SDK `AgentContext` requests go through. */
  readonly client: ElicitationClient;
  /** Capabilities from `initialize`; the `acpSessions()` helper updates them when the client initializes again. */
  clientCapabilities: ClientCapabilities | null | undefined;
  /**
   * The turn's signal: aborts when the turn is cancelled, by `session/cancel` for this session (through
   * `acpSessions().cancel()`) or by the signal given to the constructor (the prompt's `context.signal`, which the SDK
   * aborts on `$/cancel_request` for the prompt and when the connection closes). Pass it to the rest of the turn's
   * work (model calls, `fetch`, tools) so it stops too. A context built without a signal and never cancelled keeps it
   * unaborted.
   */
  readonly signal: AbortSignal;
  readonly #turn = new AbortController();
  readonly #pendingSessionCancels = new Set<() => void>();

  static {
    cancelTurnOf = (session, reason) => {
      if (!session.#turn.signal.aborted) session.#turn.abort(reason);
    };
  }

  constructor(options: AcpSessionContextOptions) {
    this.sessionId = options.sessionId;
    this.client = options.client;
    this.clientCapabilities = options.clientCapabilities;
    this.signal = this.#turn.signal;
    // A cancelled turn ends its pending questions at once (they resolve cancelled, as on session/cancel).
    this.signal.addEventListener('abort', () => this.cancelPending(), { once: true });
    const given = options.signal;
    if (given?.aborted) this.#turn.abort(given.reason);
    else given?.addEventListener('abort', () => cancelTurn(this, given.reason), { once: true });
  }

  /**
   * True once the turn was cancelled ({@link AcpSessionContext.signal} aborted). `acpSessions().prompt(handler)`
   * answers such a turn with `stopReason: 'cancelled'` itself; read it to skip work nobody waits for any more.
   *
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function report(session: AcpSessionContext, lines: string[]) {
   *   for (const line of lines) {
   *     if (session.cancelled) return;
   *     await session.say(line);
   *   }
   * }
   * ```
   */
  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /**
   * Sends `text` to the client as an `agent_message_chunk` of this session (a `session/update` notification); the
   * client shows the chunks of a turn one after another.
   *
   * @throws {@link ElicitationConnectionClosedError} when the connection is closed.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function greet(session: AcpSessionContext) {
   *   await session.say('Deploying to preview…');
   * }
   * ```
   */
  say(text: string): Promise<void> {
    return this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  }

  /**
   * Sends any `session/update` of this session: thoughts, tool calls and their updates, plans, commands (the SDK's
   * `SessionUpdate`). It still works after the turn was cancelled: ACP lets an agent send updates until it answers
   * the prompt.
   *
   * @throws {@link ElicitationConnectionClosedError} when the connection is closed.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function runTests(session: AcpSessionContext) {
   *   await session.update({ sessionUpdate: 'tool_call', toolCallId: 'tests-1', title: 'Run the tests', status: 'in_progress' });
   *   await session.update({ sessionUpdate: 'tool_call_update', toolCallId: 'tests-1', status: 'completed' });
   * }
   * ```
   */
  async update(update: SessionUpdate): Promise<void> {
    try {
      await this.client.notify(SESSION_UPDATE, { sessionId: this.sessionId, update });
    } catch (error) {
      throw this.#connectionClosed(error) ?? error;
    }
  }

  /**
   * True only when the client advertised the mode in `initialize`: `clientCapabilities.elicitation[mode]` present
   * and not `null`. `{}` and `{ form: null }` support nothing; unknown modes are never supported.
   *
   * @example
   * ```ts
   * import { AcpSessionContext } from '@acpkit/elicitation';
   * import type { AgentContext } from '@agentclientprotocol/sdk';
   *
   * declare const client: AgentContext;
   * const session = new AcpSessionContext({
   *   sessionId: 's1',
   *   client,
   *   clientCapabilities: { elicitation: { form: {} } },
   * });
   * session.supportsElicitation('form'); // true
   * session.supportsElicitation('url'); // false
   * ```
   */
  supportsElicitation(mode: ElicitationModeSelector): boolean {
    const name = modeName(mode);
    if (name !== 'form' && name !== 'url') return false;
    const elicitation = this.clientCapabilities?.elicitation;
    return elicitation?.[name] != null;
  }

  /**
   * Sends a raw `elicitation/create` and returns the client's response **unvalidated** (prefer `askForm`, which
   * validates). The `mode` is typed with the SDK's own property schemas, so a default of the wrong type or a
   * `required` name that is not a property fails to compile. `sessionId` is filled in with this session's id (a
   * request-scoped mode with `requestId` keeps its scope), and `options.toolCallId` when the mode names no tool call.
   * Refuses, before anything is sent, a mode the client did not advertise and a mode naming another session. A
   * `-32601` answer also counts as unsupported. If `session/cancel` arrives for this session while it is pending
   * (through {@link AcpSessionContext.cancelPending}), `$/cancel_request` is sent and it resolves
   * `{ action: 'cancel' }`.
   *
   * @throws {@link ClientCapabilitiesNotRecordedError} when no client capabilities were recorded.
   * @throws {@link ElicitationUnsupportedError} when the mode is not supported.
   * @throws {@link ElicitationScopeError} when `mode.sessionId` is not this session's id.
   * @throws {@link ElicitationConnectionClosedError} when the connection closes first.
   * @throws `signal.reason` when `options.signal` aborts; other wire errors as the SDK's `RequestError`.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function openLogin(session: AcpSessionContext) {
   *   const response = await session.createElicitation('Sign in to continue', {
   *     mode: 'url',
   *     elicitationId: 'login-1',
   *     url: 'https://example.com/login',
   *   });
   *   if (response.action === 'accept') await session.completeElicitation('login-1');
   * }
   * ```
   */
  async createElicitation<Properties extends { [name: string]: ElicitationFormProperty }>(
    message: string,
    mode: ElicitationMode<Properties>,
    options: CreateElicitationOptions = {},
  ): Promise<CreateElicitationResponse> {
    const name = modeName(mode);
    this.#requireRecordedCapabilities(name);
    if (this.#turnCancelled()) return { action: 'cancel' };
    if (!this.supportsElicitation(mode)) throw new ElicitationUnsupportedError(name);
    if ('sessionId' in mode && mode.sessionId !== undefined && mode.sessionId !== this.sessionId) {
      throw new ElicitationScopeError(String(mode.sessionId), this.sessionId);
    }
    const outcome = await this.#send(this.#scoped(mode, message, options.toolCallId), options.signal);
    switch (outcome.kind) {
      case 'response':
        return outcome.response as CreateElicitationResponse;
      case 'session-cancelled':
        return { action: 'cancel' };
      case 'client-cancelled':
        throw outcome.error;
      case 'method-not-found':
        throw new ElicitationUnsupportedError(name, { cause: outcome.error });
    }
  }

  /**
   * Sends `elicitation/complete` for a URL-mode elicitation.
   *
   * @throws {@link ElicitationConnectionClosedError} when the connection is closed.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function finish(session: AcpSessionContext) {
   *   await session.completeElicitation('login-1');
   * }
   * ```
   */
  async completeElicitation(elicitationId: string): Promise<void> {
    try {
      await this.client.notify(ELICITATION_COMPLETE, { elicitationId });
    } catch (error) {
      throw this.#connectionClosed(error) ?? error;
    }
  }

  /**
   * Asks the client to pick one of `choices` and returns the picked choice's typed value. Steps: validate →
   * compile → capability check → send → parse. The client only ever sees labels and opaque `choice_<i>` tokens.
   * With `as const` choices the accepted value's type is the union of the literal values; a fallback must return one
   * of them, and a misspelt choice key (`defualt`) is a type error.
   *
   * - Unsupported client (form not advertised, or `-32601`): runs `fallback`, or throws
   *   {@link ElicitationUnsupportedError}; never falls back to `session/request_permission`.
   * - `decline` → declined; `cancel`, `-32800` or `session/cancel` for this session → cancelled.
   * - `signal` aborts → `$/cancel_request` is sent and the promise rejects with `signal.reason`.
   *
   * @throws `ChoiceValidationError` (from `@acpkit/choice-schema`) for a blank question or label, no choices or two
   * defaults; nothing is sent.
   * @throws {@link ClientCapabilitiesNotRecordedError} when no client capabilities were recorded; nothing is sent.
   * @throws `InvalidElicitationResponseError` when the client's answer is not a valid choice or action.
   * @throws {@link InvalidElicitationFallbackError} when the fallback's answer cannot be used.
   * @throws {@link ElicitationConnectionClosedError} when the connection closes while waiting.
   * @example
   * ```ts
   * import { ElicitationDeclined, type AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function chooseTarget(session: AcpSessionContext, signal: AbortSignal): Promise<string> {
   *   const result = await session.askChoice(
   *     'Choose a deployment target',
   *     [
   *       { value: 'preview', label: 'Preview' },
   *       { value: 'production', label: 'Production', description: 'Deploy to the production environment.', default: true },
   *     ] as const,
   *     { signal, fallback: () => new ElicitationDeclined() },
   *   );
   *   switch (result.status) {
   *     case 'accepted':
   *       return `Selected: ${result.value}`; // result.value: 'preview' | 'production'
   *     case 'declined':
   *       return 'The user declined to choose.';
   *     case 'cancelled':
   *       return 'The choice was cancelled.';
   *   }
   * }
   * ```
   */
  async askChoice<Choice extends ElicitationChoice<unknown>>(
    question: string,
    choices: readonly ExactChoice<Choice>[],
    options: AskChoiceOptions<NoInfer<Choice['value']>> = {},
  ): Promise<ElicitationResult<Choice['value']>> {
    const params = compileChoiceElicitation({
      sessionId: this.sessionId,
      toolCallId: options.toolCallId,
      question,
      choices,
    });
    return this.#ask(
      params,
      (response) => {
        const parsed = parseChoiceResponse(response, choices);
        return clientResult(
          parsed.status === 'accepted' ? { status: 'accepted', value: parsed.choice.value } : parsed,
        );
      },
      options,
      (result) => resolveFallbackResult(result, choices, options.equals),
    );
  }

  /**
   * Asks the client to fill in a form described by a zod 4 object schema, and returns the answer parsed by that same
   * schema: `result.value` is `z.output<typeof schema>` (defaults applied, refinements and transforms run, choice
   * fields mapped back to their offered values). The schema compiles (once per schema object) to ACP's restricted
   * form schema; a construct ACP forms cannot express is a type error where TypeScript can see it and a
   * `FormSchemaError` at run time, before anything is sent. Capability checks, fallback, cancellation and results
   * work as in {@link AcpSessionContext.askChoice}. Accepted content that fails the schema is never coerced.
   *
   * @throws `FormSchemaError` (from `@acpkit/form-schema`) when the schema uses a construct ACP forms cannot express.
   * @throws `ChoiceValidationError` with code `BLANK_QUESTION` for a blank message.
   * @throws {@link ClientCapabilitiesNotRecordedError} when no client capabilities were recorded; nothing is sent.
   * @throws `InvalidElicitationResponseError` (`INVALID_CONTENT` with zod's `issues` and the raw `content`, or
   * `UNSUPPORTED_ACTION`) when the answer cannot be trusted.
   * @throws {@link InvalidElicitationFallbackError} when the fallback returns something other than a result variant.
   * @throws {@link ElicitationConnectionClosedError} when the connection closes while waiting.
   * @example
   * ```ts
   * import { choiceField, type AcpSessionContext } from '@acpkit/elicitation';
   * import { z } from 'zod';
   *
   * const release = z.object({
   *   version: z.string().regex(/^\d+\.\d+\.\d+$/).meta({ title: 'Version' }),
   *   replicas: z.int().min(1).max(5).default(2).meta({ title: 'Replicas' }),
   *   channel: choiceField([
   *     { value: 'latest', label: 'Stable', default: true },
   *     { value: 'next', label: 'Preview' },
   *   ] as const).meta({ title: 'Channel' }),
   * });
   *
   * async function askRelease(session: AcpSessionContext) {
   *   const result = await session.askForm('Release details', release);
   *   if (result.status !== 'accepted') return undefined;
   *   return result.value; // { version: string; replicas: number; channel: 'latest' | 'next' }
   * }
   * ```
   */
  async askForm<Form extends FormObjectSchema>(
    message: string,
    schema: Form & FormSchemaCheck<Form>,
    options: AskFormOptions<z.output<Form>> = {},
  ): Promise<ElicitationResult<z.output<Form>>> {
    const params = compileFormElicitation({
      sessionId: this.sessionId,
      toolCallId: options.toolCallId,
      message,
      schema,
    });
    return this.#ask(
      params,
      async (response) => clientResult(await parseFormResponse(response, schema)),
      options,
      (result) => resolveFallback(result, (value) => value as z.output<Form>),
    );
  }

  /**
   * Asks a yes/no question: one boolean field (titled `Confirm` unless `title` says otherwise); `result.value` is the
   * answer. A thin layer over {@link AcpSessionContext.askForm}.
   *
   * @throws As {@link AcpSessionContext.askForm}.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function confirmPublish(session: AcpSessionContext): Promise<boolean> {
   *   const result = await session.askConfirm('Publish 1.5.0 to npm now?', { default: false, title: 'Publish' });
   *   return result.status === 'accepted' && result.value;
   * }
   * ```
   */
  async askConfirm(question: string, options: AskConfirmOptions = {}): Promise<ElicitationResult<boolean>> {
    const field = options.default === undefined ? z.boolean() : z.boolean().default(options.default);
    return this.#askValue(question, describeField(field, options, 'Confirm'), options);
  }

  /**
   * Asks for one line of text (titled `Answer` unless `title` says otherwise), with optional length, `pattern` and
   * `format` constraints that the client is told and the answer is checked against. A thin layer over
   * {@link AcpSessionContext.askForm}.
   *
   * @throws As {@link AcpSessionContext.askForm}; `SyntaxError` for a `pattern` string that is not a regular expression.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function askTag(session: AcpSessionContext) {
   *   const result = await session.askText('Name the release tag', { pattern: '^v\\d+', maxLength: 20, default: 'v1' });
   *   return result.status === 'accepted' ? result.value : undefined;
   * }
   * ```
   */
  async askText(question: string, options: AskTextOptions = {}): Promise<ElicitationResult<string>> {
    return this.#askValue(question, textField(options), options);
  }

  /**
   * Asks the client to pick any number of `choices` (between `minItems` and `maxItems`) and returns the offered
   * values picked, in the client's order. Like {@link AcpSessionContext.askChoice}, the client only sees labels and
   * opaque tokens; every choice with `default: true` is preselected; a fallback must accept offered values only. A
   * thin layer over {@link AcpSessionContext.askForm} with a `choicesField`.
   *
   * @throws As {@link AcpSessionContext.askForm}, and `ChoiceValidationError` for no choices or a blank label.
   * @example
   * ```ts
   * import type { AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function pickPackages(session: AcpSessionContext) {
   *   const result = await session.askChoices(
   *     'Which packages should be published?',
   *     [
   *       { value: { name: '@acpkit/elicitation' }, label: 'elicitation', default: true },
   *       { value: { name: '@acpkit/remote' }, label: 'remote' },
   *     ],
   *     { minItems: 1, title: 'Packages' },
   *   );
   *   return result.status === 'accepted' ? result.value.map((pick) => pick.name) : [];
   * }
   * ```
   */
  async askChoices<Choice extends ElicitationChoice<unknown>>(
    question: string,
    choices: readonly ExactChoice<Choice>[],
    options: AskChoicesOptions<NoInfer<Choice['value']>> = {},
  ): Promise<ElicitationResult<Choice['value'][]>> {
    const field = choicesField(choices, { minItems: options.minItems, maxItems: options.maxItems });
    return this.#askValue(question, describeField(field, options, 'Choices'), options, (result) =>
      resolveFallbackResults(result, choices, options.equals),
    );
  }

  /**
   * Ends every pending `ask*` / `createElicitation` call of this session: sends `$/cancel_request` for each, then
   * resolves them as cancelled. Call it from a `session/cancel` handler; `acpSessions().cancel()` does.
   *
   * @example
   * ```ts
   * import { AcpSessionContext } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = new Map<string, AcpSessionContext>();
   * agent().onNotification(methods.agent.session.cancel, ({ params }) => {
   *   sessions.get(params.sessionId)?.cancelPending();
   * });
   * ```
   */
  cancelPending(): void {
    for (const cancel of [...this.#pendingSessionCancels]) cancel();
  }

  /**
   * The one-field form of the helpers: asks `{ value: field }` and returns the field's value. A fallback's result
   * is only required to be a result variant unless `checkFallback` checks more (the offered values of a choice).
   */
  async #askValue<Value>(
    question: string,
    field: z.ZodType<Value>,
    options: AskFormOptions<Value>,
    checkFallback: (result: unknown) => ElicitationResult<Value> = (result) =>
      resolveFallback(result, (value) => value as Value),
  ): Promise<ElicitationResult<Value>> {
    // The helpers build only form fields (boolean, string, choices); the generic field type hides which, so the
    // compile-time form check cannot see it and is asserted here.
    const form = z.object({ [VALUE_PROPERTY]: field });
    const schema = form as typeof form & FormSchemaCheck<typeof form>;
    const params = compileFormElicitation({
      sessionId: this.sessionId,
      toolCallId: options.toolCallId,
      message: question,
      schema,
    });
    return this.#ask(
      params,
      async (response) => {
        const parsed = await parseFormResponse(response, schema);
        return clientResult(
          parsed.status === 'accepted'
            ? { status: 'accepted', value: parsed.value[VALUE_PROPERTY] as Value }
            : parsed,
        );
      },
      options,
      checkFallback,
    );
  }

  /**
   * The machinery every `ask*` method shares, after its question compiled: capability check → send → parse, or the
   * fallback for a client without form elicitation.
   */
  async #ask<Value>(
    params: unknown,
    parse: (response: unknown) => ElicitationResult<Value> | Promise<ElicitationResult<Value>>,
    options: {
      readonly fallback?: ElicitationFallback<Value> | undefined;
      readonly signal?: AbortSignal | undefined;
    },
    checkFallback: (result: unknown) => ElicitationResult<Value>,
  ): Promise<ElicitationResult<Value>> {
    this.#requireRecordedCapabilities('form');
    if (this.#turnCancelled()) return new ElicitationCancelled('client');
    const runFallback = async (cause: RequestError | undefined): Promise<ElicitationResult<Value>> => {
      if (options.fallback === undefined) {
        throw new ElicitationUnsupportedError('form', cause === undefined ? undefined : { cause });
      }
      return checkFallback(await options.fallback());
    };
    if (!this.supportsElicitation('form')) return runFallback(undefined);
    const outcome = await this.#send(params, options.signal);
    switch (outcome.kind) {
      case 'response':
        return parse(outcome.response);
      case 'session-cancelled':
      case 'client-cancelled':
        return new ElicitationCancelled('client');
      case 'method-not-found':
        return runFallback(outcome.error);
    }
  }

  /** The turn was cancelled while the connection is still open (a closed one is reported as such when sending). */
  #turnCancelled(): boolean {
    return this.signal.aborted && connectionContextOf(this.client)?.signal?.aborted !== true;
  }

  #requireRecordedCapabilities(mode: string): void {
    if (this.clientCapabilities === undefined) throw new ClientCapabilitiesNotRecordedError(mode);
  }

  /** The params of a raw elicitation: this session's id unless the mode is request-scoped, then the mode. */
  #scoped(mode: object, message: string, toolCallId: string | undefined): unknown {
    const record = mode as Record<string, unknown>;
    if ('requestId' in record) return { ...record, message };
    const params: Record<string, unknown> = { sessionId: this.sessionId, ...record };
    // The spread may have brought `sessionId: undefined`; the scope is always this session.
    params.sessionId = this.sessionId;
    if (toolCallId !== undefined && params.toolCallId == null) params.toolCallId = toolCallId;
    params.message = message;
    return params;
  }

  #connectionClosed(error: unknown): ElicitationConnectionClosedError | undefined {
    const connectionSignal = connectionContextOf(this.client)?.signal;
    const closed = connectionSignal !== undefined ? connectionSignal.aborted : !isRequestError(error);
    return closed ? new ElicitationConnectionClosedError({ cause: error }) : undefined;
  }

  /**
   * Sends one `elicitation/create` and settles on the first of: the response, `signal` abort, `session/cancel`
   * for this session, the connection closing.
   */
  #send(params: unknown, signal: AbortSignal | undefined): Promise<SendOutcome> {
    const connectionSignal = connectionContextOf(this.client)?.signal;
    return new Promise<SendOutcome>((resolve, reject) => {
      if (connectionSignal?.aborted) {
        reject(new ElicitationConnectionClosedError({ cause: connectionSignal.reason }));
        return;
      }
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      // Aborting this controller makes the SDK send `$/cancel_request` and stop waiting for the answer.
      const requestController = new AbortController();
      let settled = false;
      const settle = (action: () => void): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        connectionSignal?.removeEventListener('abort', onConnectionClosed);
        this.#pendingSessionCancels.delete(onSessionCancel);
        action();
      };
      const onAbort = (): void =>
        settle(() => {
          requestController.abort(signal?.reason);
          reject(signal?.reason);
        });
      const onSessionCancel = (): void =>
        settle(() => {
          requestController.abort(RequestError.requestCancelled(undefined, 'session/cancel'));
          resolve({ kind: 'session-cancelled' });
        });
      const onConnectionClosed = (): void =>
        settle(() => reject(new ElicitationConnectionClosedError({ cause: connectionSignal?.reason })));

      signal?.addEventListener('abort', onAbort, { once: true });
      connectionSignal?.addEventListener('abort', onConnectionClosed, { once: true });
      this.#pendingSessionCancels.add(onSessionCancel);

      let request: Promise<unknown>;
      try {
        request = this.client.request(ELICITATION_CREATE, params, {
          cancellationSignal: requestController.signal,
          stopWaitingOnCancel: true,
        });
      } catch (error) {
        settle(() => reject(this.#connectionClosed(error) ?? error));
        return;
      }
      request.then(
        (response) => settle(() => resolve({ kind: 'response', response })),
        (error: unknown) =>
          settle(() => {
            const closed = this.#connectionClosed(error);
            if (closed !== undefined) reject(closed);
            else if (isRequestError(error) && error.code === METHOD_NOT_FOUND) {
              resolve({ kind: 'method-not-found', error });
            } else if (isRequestError(error) && error.code === REQUEST_CANCELLED) {
              resolve({ kind: 'client-cancelled', error });
            } else reject(error);
          }),
      );
    });
  }
}
