import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { describeAgent, describeAgentError, isCommandToQuit } from './run-client.js';

describe('describeAgent', () => {
  const initialize = { protocolVersion: 1 };

  it('uses the title with the name and version from agentInfo', () => {
    expect(
      describeAgent({ ...initialize, agentInfo: { name: 'deploy', title: 'Deploy Bot', version: '1.2.0' } }, [
        'x',
      ]),
    ).toBe('Deploy Bot (deploy 1.2.0)');
  });

  it('falls back to the name alone, then to the whole command line (not just the launcher)', () => {
    expect(describeAgent({ ...initialize, agentInfo: { name: 'deploy', version: '0.1.0' } }, ['x'])).toBe(
      'deploy 0.1.0',
    );
    expect(describeAgent({ ...initialize, agentInfo: null }, ['/usr/bin/my-agent', '--flag'])).toBe(
      'the agent “my-agent --flag”',
    );
    expect(describeAgent(undefined, ['/usr/local/bin/acpkit', 'run', './my agent.ts'])).toBe(
      "the agent “acpkit run './my agent.ts'”",
    );
  });

  it('quotes a command line with quotes in it readably: shell quoting inside, typographic quotes around', () => {
    expect(describeAgent(undefined, ['node', '-e', 'process.stdout.write("x")'])).toBe(
      `the agent “node -e 'process.stdout.write("x")'”`,
    );
  });
});

describe('isCommandToQuit', () => {
  it('takes /exit and /quit in any case, with spaces around, and nothing else', () => {
    for (const line of ['/exit', '/EXIT', ' /Quit ', '/QUIT']) expect(isCommandToQuit(line)).toBe(true);
    for (const line of ['/exit now', 'exit', '/exits', '//exit']) expect(isCommandToQuit(line)).toBe(false);
  });
});

describe('describeAgentError', () => {
  it('shows what data.details says, after the message and code', () => {
    const error = new RequestError(-32603, 'Internal error', {
      details: 'at most one choice may be the default',
    });
    expect(describeAgentError(error)).toBe(
      'The agent answered with an error: Internal error (-32603): at most one choice may be the default',
    );
  });

  it("names the agent's error class and code when data carries them (acpSessions().prompt sends both)", () => {
    const error = new RequestError(-32603, 'Internal error', {
      details: 'Property "when" is a date (z.date()), which no ACP form field can hold: use z.iso.date()',
      name: 'FormSchemaError',
      code: 'UNSUPPORTED_TYPE',
    });
    expect(describeAgentError(error)).toBe(
      'The agent answered with an error: Internal error (-32603): FormSchemaError UNSUPPORTED_TYPE: Property "when" ' +
        'is a date (z.date()), which no ACP form field can hold: use z.iso.date()',
    );
  });

  it('shows long details whole, and cuts only past 2000 characters, at a word', () => {
    const details =
      'No client capabilities were recorded for this connection: wrap your initialize handler with ' +
      'sessions.initialize(...) from acpSessions(), or pass clientCapabilities to new AcpSessionContext({ ... }) ' +
      '(null when the client advertised nothing). '.repeat(3);
    expect(describeAgentError(new RequestError(-32603, 'Internal error', { details }))).toBe(
      `The agent answered with an error: Internal error (-32603): ${details}`,
    );
    const endless = 'word '.repeat(1000);
    const shown = describeAgentError(new RequestError(-32603, 'Internal error', { details: endless }));
    expect(shown.endsWith('word…')).toBe(true);
    expect(shown.length).toBeLessThan(2100);
  });

  it('falls back to data.message, a string data, then the data as JSON, and to nothing', () => {
    expect(describeAgentError(new RequestError(-32000, 'Failed', { message: 'quota exceeded' }))).toBe(
      'The agent answered with an error: Failed (-32000): quota exceeded',
    );
    expect(describeAgentError(new RequestError(-32000, 'Failed', 'disk full'))).toBe(
      'The agent answered with an error: Failed (-32000): disk full',
    );
    expect(describeAgentError(new RequestError(-32602, 'Invalid params', { field: ['bad'] }))).toBe(
      'The agent answered with an error: Invalid params (-32602): {"field":["bad"]}',
    );
    expect(describeAgentError(new RequestError(-32601, 'Method not found'))).toBe(
      'The agent answered with an error: Method not found (-32601)',
    );
  });
});
