import type { ChoiceElicitationParams } from '@acpkit/choice-schema';
import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';
import { describe, expectTypeOf, it } from 'vitest';
import { acpSessions } from './acp-sessions.js';
import {
  ElicitationAccepted,
  type ElicitationCancelled,
  type ElicitationChoice,
  ElicitationDeclined,
  type ElicitationResult,
} from './results.js';
import type { AcpSessionContext } from './session-context.js';

declare const session: AcpSessionContext;

describe('askChoice types', () => {
  it('infers the union of literal values from as const choices', async () => {
    const result = await session.askChoice('Choose a deployment target', [
      { value: 'preview', label: 'Preview' },
      { value: 'production', label: 'Production', description: 'Deploy.', default: true },
    ] as const);
    expectTypeOf(result).toEqualTypeOf<ElicitationResult<'preview' | 'production'>>();
    if (result.status === 'accepted') expectTypeOf(result.value).toEqualTypeOf<'preview' | 'production'>();
  });

  it('infers mixed literal types, and widens without as const', async () => {
    const mixed = await session.askChoice('Q', [
      { value: 1, label: 'One' },
      { value: 'two', label: 'Two' },
      { value: null, label: 'None' },
    ] as const);
    expectTypeOf(mixed).toEqualTypeOf<ElicitationResult<1 | 'two' | null>>();
    const widened = await session.askChoice('Q', [{ value: 'a', label: 'A' }]);
    expectTypeOf(widened).toEqualTypeOf<ElicitationResult<string>>();
  });

  it('keeps an explicit value type and object values', async () => {
    interface Target {
      readonly name: string;
    }
    const choices: ElicitationChoice<Target>[] = [{ value: { name: 'a' }, label: 'A' }];
    const result = await session.askChoice('Q', choices);
    expectTypeOf(result).toEqualTypeOf<ElicitationResult<Target>>();
  });

  it('narrows with switch (result.status) and with instanceof', async () => {
    const result = await session.askChoice('Q', [{ value: 'a', label: 'A' }] as const);
    switch (result.status) {
      case 'accepted':
        expectTypeOf(result).toEqualTypeOf<ElicitationAccepted<'a'>>();
        break;
      case 'declined':
        expectTypeOf(result).toEqualTypeOf<ElicitationDeclined>();
        break;
      case 'cancelled':
        expectTypeOf(result).toEqualTypeOf<ElicitationCancelled>();
        break;
      default:
        expectTypeOf(result).toBeNever();
    }
    if (result instanceof ElicitationAccepted) {
      expectTypeOf(result.value).toEqualTypeOf<'a'>();
    } else {
      expectTypeOf(result).toEqualTypeOf<ElicitationDeclined | ElicitationCancelled>();
    }
    if (ElicitationDeclined.isInstance(result)) expectTypeOf(result.status).toEqualTypeOf<'declined'>();
  });

  it('types the options from the choice values', () => {
    expectTypeOf(session.askChoice).parameter(2).toExtend<
      | {
          fallback?: () => ElicitationResult<unknown> | Promise<ElicitationResult<unknown>>;
          signal?: AbortSignal;
          toolCallId?: string;
        }
      | undefined
    >();
    void session.askChoice('Q', [{ value: { id: 1 }, label: 'A' }] as const, {
      equals: (offered, returned) => offered.id === (returned as { id: number }).id,
      fallback: async () => new ElicitationAccepted({ id: 1 }),
    });
    // @ts-expect-error a fallback must return a result variant, not a plain value
    void session.askChoice('Q', [{ value: 'a', label: 'A' }] as const, { fallback: () => 'a' });
  });

  it('rejects choices without a label', () => {
    // @ts-expect-error label is required
    void session.askChoice('Q', [{ value: 'a' }]);
  });
});

describe('wire compatibility with the SDK', () => {
  it('compiled params are assignable to the SDK CreateElicitationRequest (stable and unstable)', () => {
    expectTypeOf<ChoiceElicitationParams>().toExtend<sdk.CreateElicitationRequest>();
    expectTypeOf<ChoiceElicitationParams>().toExtend<unstable.CreateElicitationRequest>();
  });

  it('accepts the SDK AgentContext of both entrypoints as client', () => {
    expectTypeOf<sdk.AgentContext>().toExtend<ConstructorParameters<typeof AcpSessionContext>[0]['client']>();
    expectTypeOf<unstable.AgentContext>().toExtend<
      ConstructorParameters<typeof AcpSessionContext>[0]['client']
    >();
  });
});

describe('acpSessions types', () => {
  it('wraps handlers without losing the SDK handler types (stable)', () => {
    const sessions = acpSessions();
    sdk
      .agent()
      .onRequest(
        sdk.methods.agent.initialize,
        sessions.initialize(({ params }) => {
          expectTypeOf(params).toEqualTypeOf<sdk.InitializeRequest>();
          return { protocolVersion: sdk.PROTOCOL_VERSION, agentCapabilities: {} };
        }),
      )
      .onNotification(sdk.methods.agent.session.cancel, sessions.cancel())
      .onRequest(sdk.methods.agent.session.prompt, async (context) => {
        const acpSession = sessions.sessionFor(context);
        expectTypeOf(acpSession).toEqualTypeOf<AcpSessionContext>();
        return { stopReason: 'end_turn' };
      });
  });

  it('wraps handlers of the unstable entrypoint too', () => {
    const sessions = acpSessions();
    unstable
      .agent()
      .onRequest(
        unstable.methods.agent.initialize,
        sessions.initialize(() => ({ protocolVersion: unstable.PROTOCOL_VERSION, agentCapabilities: {} })),
      )
      .onNotification(
        unstable.methods.agent.session.cancel,
        sessions.cancel(({ params }) => {
          expectTypeOf(params.sessionId).toEqualTypeOf<string>();
        }),
      )
      .onRequest(unstable.methods.agent.session.prompt, async (context) => {
        sessions.sessionFor(context);
        return { stopReason: 'end_turn' };
      });
  });
});
