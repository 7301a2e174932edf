import {
  compileChoiceElicitation,
  type ParsedChoiceResponse,
  parseChoiceResponse,
} from '@acpkit/choice-schema';
import type {
  ClientCapabilities,
  CreateElicitationResponse,
  ElicitationFormMode,
  ElicitationUrlMode,
  SendRequestOptions,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { connectionContextOf } from './connection-context.js';
import {
  ElicitationConnectionClosedError,
  ElicitationScopeError,
  ElicitationUnsupportedError,
} from './errors.js';
import { type ChoiceElicitationFallback, type ChoiceValueEquals, resolveFallbackResult } from './fallback.js';
import {
  ChoiceElicitationAccepted,
  ChoiceElicitationCancelled,
  ChoiceElicitationDeclined,
  type ChoiceElicitationResult,
  type ElicitationChoice,
} from './results.js';

const ELICITATION_CREATE = 'elicitation/create';
const ELICITATION_COMPLETE = 'elicitation/complete';
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
 * An elicitation mode for {@link AcpSessionContext.createElicitation}: the request params without `message`.
 *
 * @example
 * ```ts
 * import type { ElicitationMode } from '@acpkit/elicitation';
 *
 * const mode: ElicitationMode = { mode: 'url', sessionId: 's1', elicitationId: 'e1', url: 'https://example.com' };
 * ```
 */
export type ElicitationMode =
  | (ElicitationFormMode & { mode: 'form'; _meta?: { [key: string]: unknown } | null })
  | (ElicitationUrlMode & { mode: 'url'; _meta?: { [key: string]: unknown } | null });

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
 * const options: AcpSessionContextOptions = { sessionId: 's1', client, clientCapabilities: undefined };
 * const session = new AcpSessionContext(options);
 * ```
 */
export interface AcpSessionContextOptions {
  /** The ACP session this context asks questions in. */
  readonly sessionId: string;
  /** The SDK's `AgentContext` (`client` of a handler context or of an `AgentConnection`). */
  readonly client: ElicitationClient;
  /** `params.clientCapabilities` exactly as received in `initialize`; `undefined` means nothing is supported. */
  readonly clientCapabilities?: ClientCapabilities | null | undefined;
}

/**
 * Options of {@link AcpSessionContext.askChoice}.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationCancelled, type AskChoiceOptions } from '@acpkit/elicitation';
 *
 * const options: AskChoiceOptions<string> = {
 *   signal: AbortSignal.timeout(300_000),
 *   fallback: () => new ChoiceElicitationCancelled(),
 * };
 * ```
 */
export interface AskChoiceOptions<T> {
  /**
   * Runs only when the client does not support form elicitation (not advertised, or `-32601`); must return a
   * result variant. Without it such a client gets `ElicitationUnsupportedError`.
   */
  readonly fallback?: ChoiceElicitationFallback | undefined;
  /** Structural match for a fallback's accepted value, tried after `Object.is`; a throwing call is no match. */
  readonly equals?: ChoiceValueEquals<T> | undefined;
  /** Aborting sends `$/cancel_request` and rejects with `signal.reason`. There is no default timeout. */
  readonly signal?: AbortSignal | undefined;
  /** Tool call the question belongs to, so the client can show it beside that tool call. */
  readonly toolCallId?: string | undefined;
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
}

type SendOutcome =
  | { readonly kind: 'response'; readonly response: unknown }
  | { readonly kind: 'session-cancelled' }
  | { readonly kind: 'client-cancelled'; readonly error: RequestError }
  | { readonly kind: 'method-not-found'; readonly error: RequestError };

function isRequestError(error: unknown): error is RequestError {
  // Also recognises a RequestError from another copy of the SDK.
  return (
    error instanceof RequestError ||
    (error instanceof Error &&
      error.name === 'RequestError' &&
      typeof (error as RequestError).code === 'number')
  );
}

function resultFromClient<T>(parsed: ParsedChoiceResponse<ElicitationChoice<T>>): ChoiceElicitationResult<T> {
  switch (parsed.status) {
    case 'accepted':
      return new ChoiceElicitationAccepted(parsed.choice.value, 'client');
    case 'declined':
      return new ChoiceElicitationDeclined('client');
    case 'cancelled':
      return new ChoiceElicitationCancelled('client');
  }
}

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
  readonly #pendingSessionCancels = new Set<() => void>();

  constructor(options: AcpSessionContextOptions) {
    this.sessionId = options.sessionId;
    this.client = options.client;
    this.clientCapabilities = options.clientCapabilities;
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
   * Sends a raw `elicitation/create` and returns the client's response unvalidated. Refuses, before anything is
   * sent, a mode the client did not advertise and a session-scoped mode naming another session. A `-32601` answer
   * also counts as unsupported. If `session/cancel` arrives for this session while it is pending (through
   * {@link AcpSessionContext.cancelPending}), `$/cancel_request` is sent and it resolves `{ action: 'cancel' }`.
   *
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
   *     sessionId: session.sessionId,
   *     elicitationId: 'login-1',
   *     url: 'https://example.com/login',
   *   });
   *   if (response.action === 'accept') await session.completeElicitation('login-1');
   * }
   * ```
   */
  async createElicitation(
    message: string,
    mode: ElicitationMode,
    options: CreateElicitationOptions = {},
  ): Promise<CreateElicitationResponse> {
    const name = modeName(mode);
    if (!this.supportsElicitation(mode)) throw new ElicitationUnsupportedError(name);
    if ('sessionId' in mode && mode.sessionId !== this.sessionId) {
      throw new ElicitationScopeError(String(mode.sessionId), this.sessionId);
    }
    const outcome = await this.#send({ ...mode, message }, options.signal);
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
   * With `as const` choices the accepted value's type is the union of the literal values.
   *
   * - Unsupported client (form not advertised, or `-32601`): runs `fallback`, or throws
   *   {@link ElicitationUnsupportedError}; never falls back to `session/request_permission`.
   * - `decline` → declined; `cancel`, `-32800` or `session/cancel` for this session → cancelled.
   * - `signal` aborts → `$/cancel_request` is sent and the promise rejects with `signal.reason`.
   *
   * @throws `ChoiceValidationError` (from `@acpkit/choice-schema`) for a blank question or label, no choices or two
   * defaults; nothing is sent.
   * @throws `InvalidElicitationResponseError` when the client's answer is not a valid choice or action.
   * @throws {@link InvalidElicitationFallbackError} when the fallback's answer cannot be used.
   * @throws {@link ElicitationConnectionClosedError} when the connection closes while waiting.
   * @example
   * ```ts
   * import { ChoiceElicitationDeclined, type AcpSessionContext } from '@acpkit/elicitation';
   *
   * async function chooseTarget(session: AcpSessionContext, signal: AbortSignal): Promise<string> {
   *   const result = await session.askChoice(
   *     'Choose a deployment target',
   *     [
   *       { value: 'preview', label: 'Preview' },
   *       { value: 'production', label: 'Production', description: 'Deploy to the production environment.', default: true },
   *     ] as const,
   *     { signal, fallback: () => new ChoiceElicitationDeclined() },
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
    choices: readonly Choice[],
    options: AskChoiceOptions<Choice['value']> = {},
  ): Promise<ChoiceElicitationResult<Choice['value']>> {
    const params = compileChoiceElicitation({
      sessionId: this.sessionId,
      toolCallId: options.toolCallId,
      question,
      choices,
    });
    if (!this.supportsElicitation('form')) return this.#runFallback(choices, options, undefined);

    const outcome = await this.#send(params, options.signal);
    switch (outcome.kind) {
      case 'response':
        return resultFromClient(parseChoiceResponse(outcome.response, choices));
      case 'session-cancelled':
      case 'client-cancelled':
        return new ChoiceElicitationCancelled('client');
      case 'method-not-found':
        return this.#runFallback(choices, options, outcome.error);
    }
  }

  /**
   * Ends every pending `askChoice` / `createElicitation` of this session: sends `$/cancel_request` for each, then
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

  async #runFallback<Choice extends ElicitationChoice<unknown>>(
    choices: readonly Choice[],
    options: AskChoiceOptions<Choice['value']>,
    cause: RequestError | undefined,
  ): Promise<ChoiceElicitationResult<Choice['value']>> {
    if (options.fallback === undefined) {
      throw new ElicitationUnsupportedError('form', cause === undefined ? undefined : { cause });
    }
    const result: unknown = await options.fallback();
    return resolveFallbackResult(result, choices, options.equals);
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
