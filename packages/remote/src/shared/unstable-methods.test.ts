// Tests that the unstable-method list matches the SDK's own constants.
import * as stable from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { isUnstableMethod, UNSTABLE_METHODS } from './unstable-methods.js';

describe('isUnstableMethod', () => {
  it('flags methods that only the /unstable entrypoint defines, in both directions', () => {
    for (const method of [
      'session/fork',
      'providers/list',
      'mcp/message',
      'auth/status',
      'auth/status_update',
    ]) {
      expect(isUnstableMethod(method)).toBe(true);
    }
  });

  it('never flags stable methods, elicitation, $/cancel_request or _-prefixed extensions', () => {
    for (const method of [
      'initialize',
      'session/prompt',
      'session/update',
      'elicitation/create',
      'elicitation/complete',
      '$/cancel_request',
      '_vendor/ping',
      '_session/fork',
    ]) {
      expect(isUnstableMethod(method)).toBe(false);
    }
  });

  // After an SDK upgrade that changes these constants, update the list in unstable-methods.ts to what this expects.
  it('equals the unstable constants minus the stable constants', () => {
    const all = (module: typeof stable | typeof unstable) =>
      new Set(
        [module.AGENT_METHODS, module.CLIENT_METHODS, module.PROTOCOL_METHODS].flatMap((group) =>
          Object.values(group),
        ),
      );
    const stableSet = all(stable);
    const expected = [...all(unstable)].filter((method) => !stableSet.has(method)).sort();
    expect([...UNSTABLE_METHODS].sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });
});
