// Turns against real SDK apps: session.say/update, cancellation by default (session/cancel and the prompt's own
// abort), and sessions.prompt answering a cancelled turn with stopReason 'cancelled'.
import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AcpSessionContext,
  acpSessions,
  ElicitationCancelled,
  ElicitationConnectionClosedError,
  type PromptHandlerResult,
} from '../src/index.js';
import {
  connectClient,
  createWire,
  deferred,
  elicitationFrames,
  isCancelRequest,
  TARGETS,
} from './support/harness.js';

/** Closes what each test opened. */
const opened: Array<() => void> = [];
afterEach(() => {
  for (const close of opened.splice(0)) close();
});

type Handler = (session: AcpSessionContext, context: { signal: AbortSignal }) => Promise<PromptHandlerResult>;

/** An agent whose prompt handler is `sessions.prompt(...)` around the next queued handler. */
function turnAgent(entrypoint: 'stable' | 'unstable') {
  const entry = (entrypoint === 'unstable' ? unstable : sdk) as typeof sdk;
  const sessions = acpSessions();
  const handlers: Handler[] = [];
  const app = entry
    .agent({ name: 'turn-test-agent' })
    .onRequest(
      entry.methods.agent.initialize,
      sessions.initialize(() => ({ protocolVersion: entry.PROTOCOL_VERSION, agentCapabilities: {} })),
    )
    .onNotification(entry.methods.agent.session.cancel, sessions.cancel())
    .onRequest(entry.methods.agent.session.new, () => ({ sessionId: 'turn-session' }))
    .onRequest(
      entry.methods.agent.session.prompt,
      sessions.prompt(async (session, context) => {
        const handler = handlers.shift();
        if (handler === undefined) throw new Error('no handler queued');
        return handler(session, context);
      }),
    );
  return { app, sessions, next: (handler: Handler) => handlers.push(handler) };
}

async function connect(
  entrypoint: 'stable' | 'unstable',
  onElicitation?: Parameters<typeof connectClient>[2]['onElicitation'],
) {
  const agent = turnAgent(entrypoint);
  const wire = createWire();
  const agentConnection = agent.app.connect(wire.agentSide);
  const updates: sdk.SessionNotification[] = [];
  const entry = (entrypoint === 'unstable' ? unstable : sdk) as typeof sdk;
  let app = entry
    .client({ name: 'turn-test-client' })
    .onNotification(entry.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
  if (onElicitation) app = app.onRequest(entry.methods.client.elicitation.create, onElicitation);
  const connection = app.connect(wire.clientSide);
  await connection.agent.request(entry.methods.agent.initialize, {
    protocolVersion: entry.PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
  const { sessionId } = await connection.agent.request(entry.methods.agent.session.new, {
    cwd: '/',
    mcpServers: [],
  });
  const prompt = (signal?: AbortSignal) =>
    connection.agent.request(
      entry.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: 'text', text: 'deploy' }] },
      signal ? { cancellationSignal: signal } : undefined,
    );
  const cancel = () => connection.agent.notify(entry.methods.agent.session.cancel, { sessionId });
  opened.push(() => {
    connection.close();
    agentConnection.close();
  });
  return { agent, wire, updates, connection, agentConnection, sessionId, prompt, cancel };
}

/** A client that shows the question and answers `cancel` only when the agent withdraws it. */
function waitsForWithdrawal(asked: { resolve(): void }) {
  return ({ signal }: { signal: AbortSignal }) =>
    new Promise<sdk.CreateElicitationResponse>((resolve) => {
      asked.resolve();
      signal.addEventListener('abort', () => resolve({ action: 'cancel' }));
    });
}

describe.each(['stable', 'unstable'] as const)('turns against a real %s SDK client', (entrypoint) => {
  it('say and update reach the client as session/update of the session, in order', async () => {
    const { agent, prompt, updates, sessionId } = await connect(entrypoint);
    agent.next(async (session) => {
      await session.say('Deploying…');
      await session.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } });
      await session.update({
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Deploy',
        status: 'pending',
      });
    });
    expect(await prompt()).toEqual({ stopReason: 'end_turn' });
    expect(updates).toEqual([
      {
        sessionId,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Deploying…' } },
      },
      { sessionId, update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } } },
      {
        sessionId,
        update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Deploy', status: 'pending' },
      },
    ]);
  });

  it('session/cancel cancels a question asked without a signal, and the prompt ends with stopReason cancelled', async () => {
    const asked = deferred<void>();
    const { agent, prompt, cancel, wire } = await connect(entrypoint, waitsForWithdrawal(asked));
    const seen = deferred<{ result: unknown; cancelled: boolean; reason: unknown }>();
    agent.next(async (session) => {
      const result = await session.askChoice('Choose a deployment target', TARGETS);
      seen.resolve({ result, cancelled: session.cancelled, reason: session.signal.reason });
      await session.say(`The choice was ${result.status}.`);
      // What a handler that forgets to check returns: prompt() still answers 'cancelled'.
      return { stopReason: 'end_turn' };
    });
    const answer = prompt();
    await asked.promise;
    await cancel();
    const { result, cancelled, reason } = await seen.promise;
    expect(result).toBeInstanceOf(ElicitationCancelled);
    expect(result).toMatchObject({ source: 'client' });
    expect(cancelled).toBe(true);
    expect(reason).toMatchObject({ name: 'AbortError' });
    expect(await answer).toEqual({ stopReason: 'cancelled' });
    expect(wire.toClient.filter(isCancelRequest)).toHaveLength(1);
  });

  it('a handler that throws the abort of a cancelled turn still ends it with stopReason cancelled', async () => {
    const { agent, prompt, cancel } = await connect(entrypoint);
    const working = deferred<void>();
    agent.next(async (session) => {
      working.resolve();
      // Work that follows the turn's signal, as fetch or a model call does.
      await new Promise((_resolve, reject) => {
        session.signal.addEventListener('abort', () => reject(session.signal.reason));
      });
    });
    const answer = prompt();
    await working.promise;
    await cancel();
    expect(await answer).toEqual({ stopReason: 'cancelled' });
  });

  it('asks nothing once the turn was cancelled, and a cancel before a prompt leaves the next turn alone', async () => {
    const { agent, prompt, cancel, wire } = await connect(entrypoint, () => ({
      action: 'accept',
      content: { choice: 'choice_0' },
    }));
    await cancel();
    const working = deferred<void>();
    const proceed = deferred<void>();
    const results: unknown[] = [];
    agent.next(async (session) => {
      results.push(session.cancelled);
      working.resolve();
      await proceed.promise;
      results.push(session.cancelled, await session.askChoice('Q', TARGETS));
      results.push(
        await session.createElicitation('Raw', {
          mode: 'form',
          requestedSchema: { type: 'object', properties: {} },
        }),
      );
    });
    const answer = prompt();
    await working.promise;
    await cancel();
    proceed.resolve();
    expect(await answer).toEqual({ stopReason: 'cancelled' });
    expect(results[0]).toBe(false);
    expect(results[1]).toBe(true);
    expect(results[2]).toBeInstanceOf(ElicitationCancelled);
    expect(results[3]).toEqual({ action: 'cancel' });
    expect(elicitationFrames(wire)).toHaveLength(0);
  });

  it("the prompt's own $/cancel_request cancels its turn and is answered with stopReason cancelled", async () => {
    const asked = deferred<void>();
    const { agent, prompt } = await connect(entrypoint, waitsForWithdrawal(asked));
    const seen = deferred<unknown>();
    agent.next(async (session) => {
      seen.resolve(await session.askConfirm('Deploy now?'));
    });
    const controller = new AbortController();
    const answer = prompt(controller.signal);
    await asked.promise;
    controller.abort();
    expect(await seen.promise).toBeInstanceOf(ElicitationCancelled);
    expect(await answer).toEqual({ stopReason: 'cancelled' });
  });

  it('an explicit signal composes with the turn: it rejects that question with its reason, the turn goes on', async () => {
    const asked = deferred<void>();
    const { agent, prompt } = await connect(entrypoint, waitsForWithdrawal(asked));
    const seen = deferred<{ error: unknown; cancelled: boolean }>();
    const timeout = new Error('the agent gave up waiting');
    const controller = new AbortController();
    agent.next(async (session) => {
      const error = await session
        .askChoice('Q', TARGETS, { signal: controller.signal })
        .catch((caught) => caught);
      seen.resolve({ error, cancelled: session.cancelled });
      return { stopReason: 'max_turn_requests' };
    });
    const answer = prompt();
    await asked.promise;
    controller.abort(timeout);
    expect(await seen.promise).toEqual({ error: timeout, cancelled: false });
    expect(await answer).toEqual({ stopReason: 'max_turn_requests' });
  });

  it("sends an ACP Kit error's name and code in data, a RequestError unchanged, other errors as the SDK does", async () => {
    const { agent, prompt } = await connect(entrypoint);
    agent.next(async (session) => {
      // @ts-expect-error z.date() is no form field: refused at compile time, and at run time here
      await session.askForm('When?', z.object({ when: z.date() }));
    });
    const formError = await prompt().catch((error: unknown) => error);
    expect(formError).toBeInstanceOf(sdk.RequestError);
    expect(formError).toMatchObject({
      code: -32603,
      data: {
        name: 'FormSchemaError',
        code: 'UNSUPPORTED_TYPE',
        details: expect.stringContaining('z.iso.date()'),
      },
    });
    agent.next(async () => {
      throw sdk.RequestError.invalidParams({ field: 'prompt' }, 'no prompt');
    });
    await expect(prompt()).rejects.toMatchObject({ code: -32602, data: { field: 'prompt' } });
    agent.next(async () => {
      throw new Error('plain failure');
    });
    const plain = await prompt().catch((error: unknown) => error);
    expect(plain).toMatchObject({ code: -32603, data: { details: 'plain failure' } });
    expect((plain as sdk.RequestError).data).not.toHaveProperty('code');
  });

  it('gives one session context per turn: the same within a prompt, a new one for the next prompt', async () => {
    const { agent, prompt } = await connect(entrypoint);
    const turns: AcpSessionContext[] = [];
    const handler: Handler = async (session) => {
      turns.push(session);
    };
    agent.next(handler);
    await prompt();
    agent.next(handler);
    await prompt();
    expect(turns[0]).not.toBe(turns[1]);
    expect(turns[0]?.sessionId).toBe(turns[1]?.sessionId);
  });

  it('rejects a question with ElicitationConnectionClosedError, not cancelled, when the connection drops', async () => {
    const asked = deferred<void>();
    const { agent, prompt, wire, agentConnection } = await connect(entrypoint, () => {
      asked.resolve();
      return new Promise(() => {});
    });
    const seen = deferred<unknown>();
    agent.next(async (session) => {
      seen.resolve(await session.askChoice('Q', TARGETS).catch((error: unknown) => error));
    });
    prompt().catch(() => {});
    await asked.promise;
    wire.disconnect();
    expect(ElicitationConnectionClosedError.isInstance(await seen.promise)).toBe(true);
    await agentConnection.closed;
  });
});

describe('sessionFor in a handler of its own', () => {
  it('ties questions to session/cancel without a signal option', async () => {
    const sessions = acpSessions();
    const seen = deferred<{ result: unknown; cancelled: boolean }>();
    const app = sdk
      .agent({ name: 'own-handler' })
      .onRequest(
        sdk.methods.agent.initialize,
        sessions.initialize(() => ({ protocolVersion: sdk.PROTOCOL_VERSION, agentCapabilities: {} })),
      )
      .onNotification(sdk.methods.agent.session.cancel, sessions.cancel())
      .onRequest(sdk.methods.agent.session.new, () => ({ sessionId: 's' }))
      .onRequest(sdk.methods.agent.session.prompt, async (context) => {
        const session = sessions.sessionFor(context);
        expect(sessions.sessionFor(context)).toBe(session);
        const result = await session.askChoice('Q', TARGETS);
        seen.resolve({ result, cancelled: session.cancelled });
        return { stopReason: session.cancelled ? 'cancelled' : 'end_turn' };
      });
    const wire = createWire();
    const agentConnection = app.connect(wire.agentSide);
    const asked = deferred<void>();
    const client = await connectClient('stable', wire.clientSide, {
      clientCapabilities: { elicitation: { form: {} } },
      onElicitation: waitsForWithdrawal(asked),
    });
    const answer = client.prompt();
    await asked.promise;
    await client.cancelSession();
    expect(await seen.promise).toMatchObject({ cancelled: true });
    expect((await seen.promise).result).toBeInstanceOf(ElicitationCancelled);
    expect(await answer).toEqual({ stopReason: 'cancelled' });
    client.connection.close();
    agentConnection.close();
  });
});
