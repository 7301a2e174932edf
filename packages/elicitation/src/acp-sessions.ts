import type { ClientCapabilities, PromptResponse } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { connectionContextOf } from './connection-context.js';
import { AcpSessionContext, cancelTurn, type ElicitationClient, isRequestError } from './session-context.js';

const REQUEST_CANCELLED = -32800;

/**
 * The part of an `initialize` handler context {@link AcpSessions.initialize} reads.
 *
 * @example
 * ```ts
 * import type { InitializeContextLike } from '@acpkit/elicitation';
 *
 * const capabilitiesOf = (context: InitializeContextLike) => context.params.clientCapabilities;
 * ```
 */
export interface InitializeContextLike {
  readonly params: { readonly clientCapabilities?: ClientCapabilities | null | undefined };
  readonly client: ElicitationClient;
}

/**
 * The part of a `session/cancel` handler context {@link AcpSessions.cancel} reads.
 *
 * @example
 * ```ts
 * import type { CancelContextLike } from '@acpkit/elicitation';
 *
 * const cancelledSession = (context: CancelContextLike) => context.params.sessionId;
 * ```
 */
export interface CancelContextLike {
  readonly params: { readonly sessionId: string };
  readonly client: ElicitationClient;
}

/**
 * The part of a session-scoped handler context (`session/prompt`, ...) {@link AcpSessions.sessionFor} reads.
 *
 * @example
 * ```ts
 * import type { SessionContextLike } from '@acpkit/elicitation';
 *
 * const sessionIdOf = (context: SessionContextLike) => context.params.sessionId;
 * ```
 */
export interface SessionContextLike {
  readonly params: { readonly sessionId: string };
  readonly client: ElicitationClient;
  /** The request's signal (the SDK's handler contexts have one): the turn is cancelled when it aborts. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * What the handler given to {@link AcpSessions.prompt} returns: nothing (the turn ends with `end_turn`) or a prompt
 * response (another stop reason, `_meta`).
 *
 * @example
 * ```ts
 * import type { PromptHandlerResult } from '@acpkit/elicitation';
 *
 * const outOfTokens: PromptHandlerResult = { stopReason: 'max_tokens' };
 * ```
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets an `async` handler without a `return` type-check.
export type PromptHandlerResult = PromptResponse | undefined | void;

interface ConnectionState {
  clientCapabilities: ClientCapabilities | null | undefined;
  /**
   * The turns handed out per session, held weakly: a turn is over when nothing refers to it any more (the SDK does
   * not say when a request ends), and `session/cancel` only has to reach turns someone still awaits.
   */
  readonly sessions: Map<string, Set<WeakRef<AcpSessionContext>>>;
}

/** The turns of `sessionId` still alive; forgets the collected ones (and the session, when none is left). */
function liveTurns(state: ConnectionState, sessionId: string): AcpSessionContext[] {
  const refs = state.sessions.get(sessionId);
  if (refs === undefined) return [];
  const live: AcpSessionContext[] = [];
  for (const ref of refs) {
    const turn = ref.deref();
    if (turn === undefined) refs.delete(ref);
    else live.push(turn);
  }
  if (refs.size === 0) state.sessions.delete(sessionId);
  return live;
}

/** Why a turn's signal aborts on `session/cancel`: an `AbortError`, as `fetch` and model SDKs expect. */
function sessionCancelled(): DOMException {
  return new DOMException('The turn was cancelled by session/cancel.', 'AbortError');
}

/** What a cancelled operation throws: the turn's own reason, an `AbortError`, or a JSON-RPC -32800. */
function isAbort(error: unknown, signal: AbortSignal): boolean {
  if (error === signal.reason) return true;
  if (isRequestError(error)) return error.code === REQUEST_CANCELLED;
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/**
 * A handler's error as the JSON-RPC error the client gets. The SDK alone sends `Internal error` with only the
 * message (`data.details`); an error with a stable string `code` (every ACP Kit error, Node's system errors) also
 * gets its `name` and `code` into `data`, so a client can show `FormSchemaError UNSUPPORTED_TYPE: …`.
 */
function toWireError(error: unknown): unknown {
  if (isRequestError(error) || !(error instanceof Error)) return error;
  const { code } = error as { code?: unknown };
  if (typeof code !== 'string') return error;
  return RequestError.internalError({ details: error.message, name: error.name, code });
}

/**
 * Wires an SDK `agent()` app so its handlers get an {@link AcpSessionContext} per turn: wrap the `initialize`
 * handler with {@link AcpSessions.initialize} (captures the client's capabilities for that connection), register
 * {@link AcpSessions.cancel} for `session/cancel` (cancels that session's running turn), and write the prompt
 * handler with {@link AcpSessions.prompt} (or call {@link AcpSessions.sessionFor} in your own). State is kept per
 * connection in this object (a `WeakMap` keyed by the SDK's connection), never in module globals, so one app can serve
 * many connections.
 *
 * @example
 * ```ts
 * import { acpSessions } from '@acpkit/elicitation';
 * import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
 *
 * const sessions = acpSessions();
 * const app = agent({ name: 'deploy-target' })
 *   .onRequest(
 *     methods.agent.initialize,
 *     sessions.initialize(() => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} })),
 *   )
 *   .onNotification(methods.agent.session.cancel, sessions.cancel())
 *   .onRequest(methods.agent.session.new, () => ({ sessionId: crypto.randomUUID() }))
 *   .onRequest(
 *     methods.agent.session.prompt,
 *     sessions.prompt(async (session) => {
 *       const result = await session.askChoice('Choose', [{ value: 'a', label: 'A' }] as const);
 *       await session.say(result.status);
 *     }),
 *   );
 * ```
 */
export class AcpSessions {
  readonly #connections = new WeakMap<object, ConnectionState>();
  /** The turn handed out for each handler context. */
  readonly #turns = new WeakMap<object, AcpSessionContext>();
  /**
   * Forgets a collected turn's entry, and its session's when none is left: a session that is never prompted or
   * cancelled again (evicted, or simply done) must not keep its entry for the connection's lifetime.
   */
  readonly #collected = new FinalizationRegistry<{
    readonly state: ConnectionState;
    readonly sessionId: string;
    readonly ref: WeakRef<AcpSessionContext>;
  }>(({ state, sessionId, ref }) => {
    const refs = state.sessions.get(sessionId);
    if (refs === undefined) return;
    refs.delete(ref);
    if (refs.size === 0) state.sessions.delete(sessionId);
  });

  #state(client: ElicitationClient): ConnectionState {
    // One state per SDK connection; a client without one (a test double) is its own connection.
    const key: object = connectionContextOf(client) ?? client;
    let state = this.#connections.get(key);
    if (state === undefined) {
      state = { clientCapabilities: undefined, sessions: new Map() };
      this.#connections.set(key, state);
    }
    return state;
  }

  /**
   * Wraps an `initialize` handler: records `params.clientCapabilities` for this connection (also on a repeated
   * `initialize`), then runs the handler and returns its response.
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onRequest(
   *   methods.agent.initialize,
   *   sessions.initialize(() => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} })),
   * );
   * ```
   */
  initialize<Context extends InitializeContextLike, Response>(
    handler: (context: Context) => Response | Promise<Response>,
  ): (context: Context) => Promise<Response> {
    return async (context) => {
      const state = this.#state(context.client);
      // `null` when the client sent none: recorded (nothing supported), unlike `undefined` (never initialized).
      state.clientCapabilities = context.params.clientCapabilities ?? null;
      for (const sessionId of [...state.sessions.keys()]) {
        for (const turn of liveTurns(state, sessionId)) turn.clientCapabilities = state.clientCapabilities;
      }
      return handler(context);
    };
  }

  /**
   * Returns a `session/cancel` handler: cancels the running turns of that session on this connection (their
   * `signal` aborts, `cancelled` turns true; pending `ask*` / `createElicitation` calls send `$/cancel_request` and
   * resolve cancelled, later ones resolve cancelled without asking); then the optional `handler` runs.
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onNotification(
   *   methods.agent.session.cancel,
   *   sessions.cancel(({ params }) => console.error(`cancelled ${params.sessionId}`)),
   * );
   * ```
   */
  cancel<Context extends CancelContextLike>(
    handler?: (context: Context) => void | Promise<void>,
  ): (context: Context) => Promise<void> {
    return async (context) => {
      const state = this.#state(context.client);
      for (const turn of liveTurns(state, context.params.sessionId)) cancelTurn(turn, sessionCancelled());
      await handler?.(context);
    };
  }

  /**
   * A `session/prompt` handler around `handler`, which gets the turn's {@link AcpSessionContext} (as
   * {@link AcpSessions.sessionFor} gives it) and the SDK context. The prompt is answered with what `handler` returns,
   * or `{ stopReason: 'end_turn' }` when it returns nothing; but a cancelled turn (`session/cancel`, or the prompt's
   * own abort) is always answered `{ stopReason: 'cancelled' }`, as ACP requires, also when `handler` returned
   * another reason or threw an abort (an `AbortError`, the turn's `signal.reason`, or a JSON-RPC -32800). A
   * `RequestError` thrown by `handler` goes to the client unchanged; another error with a string `code` (every ACP
   * Kit error) becomes `Internal error` (-32603) with `data: { details, name, code }`, so the client can show the
   * error's class, code and message; other errors as the SDK sends them (`data: { details }`).
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onRequest(
   *   methods.agent.session.prompt,
   *   sessions.prompt(async (session) => {
   *     const result = await session.askConfirm('Deploy now?');
   *     await session.say(result.status === 'accepted' && result.value ? 'Deploying.' : 'Not deploying.');
   *   }),
   * );
   * ```
   */
  prompt<Context extends SessionContextLike>(
    handler: (
      session: AcpSessionContext,
      context: Context,
    ) => PromptHandlerResult | Promise<PromptHandlerResult>,
  ): (context: Context) => Promise<PromptResponse> {
    return async (context) => {
      const session = this.sessionFor(context);
      let response: PromptHandlerResult;
      try {
        response = await handler(session, context);
      } catch (error) {
        if (session.cancelled && isAbort(error, session.signal)) return { stopReason: 'cancelled' };
        throw toWireError(error);
      }
      if (session.cancelled) return { ...response, stopReason: 'cancelled' };
      return response ?? { stopReason: 'end_turn' };
    };
  }

  /**
   * The {@link AcpSessionContext} of this turn: one per handler context (the SDK makes one per request, so each
   * prompt gets its own, and calling `sessionFor` twice in a handler gives the same object), for
   * `context.params.sessionId` on the connection `context.client` belongs to, with the capabilities captured by
   * {@link AcpSessions.initialize}. Its questions are tied to the turn: `session/cancel` for the session (through
   * {@link AcpSessions.cancel}) and `context.signal` cancel them, with no `signal` option to pass. When the
   * `initialize` handler was not wrapped, the context has no capabilities and its `ask*` methods throw
   * `ClientCapabilitiesNotRecordedError`, which says how to fix it.
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onRequest(methods.agent.session.prompt, async (context) => {
   *   const session = sessions.sessionFor(context);
   *   await session.say(session.supportsElicitation('form') ? 'I can ask you questions.' : 'I cannot ask.');
   *   return { stopReason: session.cancelled ? 'cancelled' : 'end_turn' };
   * });
   * ```
   */
  sessionFor(context: SessionContextLike): AcpSessionContext {
    const known = this.#turns.get(context);
    if (known !== undefined) return known;
    const state = this.#state(context.client);
    const { sessionId } = context.params;
    const turn = new AcpSessionContext({
      sessionId,
      client: context.client,
      clientCapabilities: state.clientCapabilities,
      signal: context.signal,
    });
    liveTurns(state, sessionId);
    let refs = state.sessions.get(sessionId);
    if (refs === undefined) {
      refs = new Set();
      state.sessions.set(sessionId, refs);
    }
    const ref = new WeakRef(turn);
    refs.add(ref);
    this.#collected.register(turn, { state, sessionId, ref });
    this.#turns.set(context, turn);
    return turn;
  }

  /**
   * Forgets a session on this connection (for example from a `session/close` handler); its running turns are
   * cancelled first.
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onRequest(methods.agent.session.close, (context) => {
   *   sessions.forget(context);
   *   return {};
   * });
   * ```
   */
  forget(context: SessionContextLike): void {
    const state = this.#state(context.client);
    for (const turn of liveTurns(state, context.params.sessionId)) cancelTurn(turn, sessionCancelled());
    state.sessions.delete(context.params.sessionId);
  }
}

/**
 * Creates an {@link AcpSessions} helper for one SDK agent app (or several: state is per connection).
 *
 * @example
 * ```ts
 * import { acpSessions } from '@acpkit/elicitation';
 *
 * const sessions = acpSessions();
 * ```
 */
export function acpSessions(): AcpSessions {
  return new AcpSessions();
}
