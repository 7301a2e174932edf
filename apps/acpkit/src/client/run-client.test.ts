import { describe, expect, it } from 'vitest';
import { describeAgent } from './run-client.js';

describe('describeAgent', () => {
  const initialize = { protocolVersion: 1 };

  it('uses the title with the name and version from agentInfo', () => {
    expect(
      describeAgent({ ...initialize, agentInfo: { name: 'deploy', title: 'Deploy Bot', version: '1.2.0' } }, [
        'x',
      ]),
    ).toBe('Deploy Bot (deploy 1.2.0)');
  });

  it('falls back to the name alone, then to the command', () => {
    expect(describeAgent({ ...initialize, agentInfo: { name: 'deploy', version: '0.1.0' } }, ['x'])).toBe(
      'deploy 0.1.0',
    );
    expect(describeAgent({ ...initialize, agentInfo: null }, ['/usr/bin/my-agent', '--flag'])).toBe(
      'the agent my-agent',
    );
    expect(describeAgent(undefined, [])).toBe('the agent agent');
  });
});
