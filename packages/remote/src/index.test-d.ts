// Type tests of the public API: what the entry points accept and return.
import { agent } from '@agentclientprotocol/sdk';
import { agent as unstableAgent } from '@agentclientprotocol/sdk/unstable';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type AgentAppSource,
  type ConnectOptions,
  connectAcp,
  type MirrorOptions,
  type RemoteConnection,
  type RemoteServer,
  runMirror,
  serveAcp,
  serveCommand,
} from './index.js';

describe('public API types', () => {
  it('accepts stable and /unstable agent apps and factories of them', () => {
    expectTypeOf(agent({ name: 'stable' })).toExtend<AgentAppSource>();
    expectTypeOf(unstableAgent({ name: 'unstable' })).toExtend<AgentAppSource>();
    expectTypeOf(() => agent({ name: 'factory' })).toExtend<AgentAppSource>();
    expectTypeOf(async () => unstableAgent({ name: 'async-factory' })).toExtend<AgentAppSource>();
    expectTypeOf({ notAnApp: true }).not.toExtend<AgentAppSource>();
  });

  it('returns the documented shapes', () => {
    expectTypeOf(serveAcp).returns.resolves.toEqualTypeOf<RemoteServer>();
    expectTypeOf(serveCommand).returns.resolves.toEqualTypeOf<RemoteServer>();
    expectTypeOf(connectAcp).returns.resolves.toEqualTypeOf<RemoteConnection>();
    expectTypeOf(runMirror).returns.resolves.toEqualTypeOf<number>();
    expectTypeOf<RemoteConnection['closed']>().resolves.toEqualTypeOf<{ code: number; reason: string }>();
  });

  it('takes readonly argv and the command options together with the serve options', () => {
    expectTypeOf(serveCommand).parameter(0).toEqualTypeOf<readonly string[]>();
    expectTypeOf(serveCommand)
      .parameter(1)
      .toExtend<
        | { port?: number; cwd?: string; stderr?: 'inherit' | 'discard'; terminateTimeoutMs?: number }
        | undefined
      >();
  });

  it('gives connectAcp only the options it uses, and the mirror its own on top', () => {
    expectTypeOf(connectAcp).parameter(1).toEqualTypeOf<ConnectOptions | undefined>();
    expectTypeOf<ConnectOptions>().not.toHaveProperty('hostOwnership');
    expectTypeOf<ConnectOptions>().not.toHaveProperty('useUnstableProtocol');
    expectTypeOf<ConnectOptions>().not.toHaveProperty('emitLatencyMeta');
    expectTypeOf<MirrorOptions>().toExtend<ConnectOptions>();
    expectTypeOf<MirrorOptions>().toHaveProperty('hostOwnership');
  });
});
