import type { ClientCapabilities } from '@agentclientprotocol/sdk';
import { connectionContextOf } from './connection-context.js';
import { AcpSessionContext, type ElicitationClient } from './session-context.js';

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
}

interface ConnectionState {
  clientCapabilities: ClientCapabilities | null | undefined;
  readonly sessions: Map<string, AcpSessionContext>;
}

/**
 * Wires an SDK `agent()` app so its handlers get an {@link AcpSessionContext} per session: wrap the `initialize`
 * handler with {@link AcpSessions.initialize} (captures the client's capabilities for that connection), register
 * {@link AcpSessions.cancel} for `session/cancel` (cancels pending questions of that session), and call
 * {@link AcpSessions.sessionFor} in a prompt handler. State is kept per connection in this object (a `WeakMap` keyed
 * by the SDK's connection), never in module globals, so one app can serve many connections.
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
 *   .onRequest(methods.agent.session.prompt, async (context) => {
 *     const session = sessions.sessionFor(context);
 *     const result = await session.askChoice('Choose', [{ value: 'a', label: 'A' }] as const);
 *     console.error(result.status);
 *     return { stopReason: 'end_turn' };
 *   });
 * ```
 */
export class AcpSessions {
  readonly #connections = new WeakMap<object, ConnectionState>();

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
      for (const session of state.sessions.values()) session.clientCapabilities = state.clientCapabilities;
      return handler(context);
    };
  }

  /**
   * Returns a `session/cancel` handler: pending `ask*` / `createElicitation` calls of that session on this
   * connection send `$/cancel_request` and resolve cancelled; then the optional `handler` runs.
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
      this.#state(context.client).sessions.get(context.params.sessionId)?.cancelPending();
      await handler?.(context);
    };
  }

  /**
   * The {@link AcpSessionContext} of `context.params.sessionId` on the connection `context.client` belongs to,
   * with the capabilities captured by {@link AcpSessions.initialize}. The same session on the same connection
   * always gets the same object. When the `initialize` handler was not wrapped, the context has no capabilities and
   * its `ask*` methods throw `ClientCapabilitiesNotRecordedError`, which says how to fix it.
   *
   * @example
   * ```ts
   * import { acpSessions } from '@acpkit/elicitation';
   * import { agent, methods } from '@agentclientprotocol/sdk';
   *
   * const sessions = acpSessions();
   * agent().onRequest(methods.agent.session.prompt, async (context) => {
   *   const session = sessions.sessionFor(context);
   *   console.error(session.supportsElicitation('form'));
   *   return { stopReason: 'end_turn' };
   * });
   * ```
   */
  sessionFor(context: SessionContextLike): AcpSessionContext {
    const state = this.#state(context.client);
    const { sessionId } = context.params;
    let session = state.sessions.get(sessionId);
    if (session === undefined) {
      session = new AcpSessionContext({
        sessionId,
        client: context.client,
        clientCapabilities: state.clientCapabilities,
      });
      state.sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Forgets a session on this connection (for example from a `session/close` handler); pending questions are
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
    state.sessions.get(context.params.sessionId)?.cancelPending();
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
