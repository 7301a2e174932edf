import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';
import { describe, expectTypeOf, it } from 'vitest';
import { type AcpSessionContext, acpSessions } from './index.js';

describe('turn API types', () => {
  it('sessions.prompt is a session/prompt handler of both SDK entrypoints', () => {
    const sessions = acpSessions();
    sdk.agent().onRequest(
      sdk.methods.agent.session.prompt,
      sessions.prompt(async (session, context) => {
        expectTypeOf(session).toEqualTypeOf<AcpSessionContext>();
        expectTypeOf(context.params).toEqualTypeOf<sdk.PromptRequest>();
        await session.say('hi');
      }),
    );
    unstable.agent().onRequest(
      unstable.methods.agent.session.prompt,
      sessions.prompt(async (session) => {
        await session.say('hi');
        return { stopReason: 'max_tokens' };
      }),
    );
  });

  it('the handler returns nothing or a prompt response with a real stop reason', () => {
    const sessions = acpSessions();
    sessions.prompt(() => undefined);
    sessions.prompt(() => ({ stopReason: 'refusal', _meta: { model: 'x' } }));
    // @ts-expect-error not a stop reason
    sessions.prompt(() => ({ stopReason: 'done' }));
    // @ts-expect-error a prompt response, not a bare stop reason
    sessions.prompt(() => 'end_turn');
  });

  it('say takes text, update a typed session update; signal and cancelled are read-only', () => {
    const session = {} as AcpSessionContext;
    expectTypeOf(session.say).parameters.toEqualTypeOf<[string]>();
    expectTypeOf(session.say('x')).toEqualTypeOf<Promise<void>>();
    expectTypeOf(session.update).parameter(0).toEqualTypeOf<sdk.SessionUpdate>();
    void session.update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run' });
    // @ts-expect-error an unknown update kind
    void session.update({ sessionUpdate: 'shout', text: 'x' });
    // @ts-expect-error a chunk needs its content block
    void session.update({ sessionUpdate: 'agent_message_chunk', text: 'x' });
    expectTypeOf(session.signal).toEqualTypeOf<AbortSignal>();
    expectTypeOf(session.cancelled).toEqualTypeOf<boolean>();
    // @ts-expect-error read-only
    session.cancelled = true;
    // @ts-expect-error read-only
    session.signal = new AbortController().signal;
  });

  it('sessionFor takes a context with or without a signal', () => {
    const sessions = acpSessions();
    const client = {} as sdk.AgentContext;
    sessions.sessionFor({ params: { sessionId: 's' }, client });
    sessions.sessionFor({ params: { sessionId: 's' }, client, signal: AbortSignal.abort() });
  });
});
