import { agent, client } from '@agentclientprotocol/sdk';
import { agent as unstableAgent } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';
import { isAgentApp, parseTargetSpecifier } from './target.js';

describe('parseTargetSpecifier', () => {
  it.each([
    ['./agent.js', { modulePath: './agent.js', exportName: undefined }],
    ['./agent.ts:createAgent', { modulePath: './agent.ts', exportName: 'createAgent' }],
    ['dist/index:default', { modulePath: 'dist/index', exportName: 'default' }],
    ['  ./agent.js:$app  ', { modulePath: './agent.js', exportName: '$app' }],
    ['C:\\agents\\agent.js', { modulePath: 'C:\\agents\\agent.js', exportName: undefined }],
    ['C:\\agents\\agent.js:make', { modulePath: 'C:\\agents\\agent.js', exportName: 'make' }],
  ])('parses %j', (specifier, expected) => {
    expect(parseTargetSpecifier(specifier)).toEqual(expected);
  });

  it.each(['', '   ', ':app', './agent.js:', './agent.js:not-an-identifier', './agent.js:1x'])(
    'throws USAGE for %j',
    (specifier) => {
      try {
        parseTargetSpecifier(specifier);
        expect.unreachable();
      } catch (error) {
        expect(CliError.isInstance(error)).toBe(true);
        expect((error as CliError).code).toBe(CliErrorCode.Usage);
      }
    },
  );
});

describe('isAgentApp', () => {
  it('accepts stable and unstable agent apps', () => {
    expect(isAgentApp(agent({ name: 'stable' }))).toBe(true);
    expect(isAgentApp(unstableAgent({ name: 'unstable' }))).toBe(true);
  });

  it('rejects client apps, look-alikes and primitives', () => {
    expect(isAgentApp(client({ name: 'client' }))).toBe(false);
    expect(isAgentApp({ connect() {}, connectWith() {}, onRequest() {}, onNotification() {} })).toBe(false);
    expect(isAgentApp(() => agent())).toBe(false);
    expect(isAgentApp(undefined)).toBe(false);
    expect(isAgentApp('agent')).toBe(false);
  });
});
