// An in-process SDK agent whose sessions live in a store its caller keeps (as a database outlives a server): each
// reply names every prompt the session was given, so a test sees which history reached the agent. For the tests of
// sessions carried across a lost server.
import { agent, methods, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';

/** The sessions of {@link notesAgent}: their prompts, by session id. Shared by every server of a test. */
export type NotesStore = Map<string, string[]>;

export interface NotesAgentOptions {
  readonly store: NotesStore;
  /** How the agent offers its sessions again: `session/resume`, `session/load` (replaying them) or neither. */
  readonly reopen: 'resume' | 'load' | 'none';
  /** Every session method needs `authenticate` (method `token`) first, on each connection (`auth_required`). */
  readonly requiresAuthentication?: boolean;
}

/** The reply to the prompts of a session so far. */
export function notesReply(prompts: readonly string[]): string {
  return `Seen ${prompts.length} prompts: ${prompts.join(' | ')}.`;
}

/**
 * Answers each prompt with {@link notesReply}; a prompt `hold` waits until the connection ends (a turn in flight
 * at a cut). `session/load` replays every prompt and reply as `session/update`s first.
 */
export function notesAgent(options: NotesAgentOptions) {
  const { store } = options;
  let authenticated = options.requiresAuthentication !== true;
  const known = (sessionId: string) => {
    if (!authenticated) throw RequestError.authRequired();
    const prompts = store.get(sessionId);
    if (prompts === undefined) throw RequestError.resourceNotFound(sessionId);
    return prompts;
  };
  return agent({ name: 'notes' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: options.reopen === 'load',
        ...(options.reopen === 'resume' ? { sessionCapabilities: { resume: {} } } : {}),
      },
      authMethods: options.requiresAuthentication ? [{ id: 'token', name: 'Token' }] : [],
    }))
    .onRequest(methods.agent.authenticate, ({ params }) => {
      if (params.methodId !== 'token') throw RequestError.invalidParams({ methodId: params.methodId });
      authenticated = true;
      return {};
    })
    .onRequest(methods.agent.session.new, () => {
      if (!authenticated) throw RequestError.authRequired();
      const sessionId = `notes-${store.size + 1}`;
      store.set(sessionId, []);
      return { sessionId };
    })
    .onRequest(methods.agent.session.resume, ({ params }) => {
      known(params.sessionId);
      return {};
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const prompts = known(params.sessionId);
      for (let index = 0; index < prompts.length; index += 1) {
        for (const update of [
          { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: prompts[index]! } },
          {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: notesReply(prompts.slice(0, index + 1)) },
          },
        ] as const)
          await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
      }
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client, signal }) => {
      const prompts = known(params.sessionId);
      const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
      if (text === 'hold') {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        return { stopReason: 'cancelled' };
      }
      prompts.push(text);
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: notesReply(prompts) },
        },
      });
      return { stopReason: 'end_turn' };
    });
}
