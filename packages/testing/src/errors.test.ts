import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { AgentProcessError, ScriptedAnswerError, TestingError, TestingErrorCode } from './errors.js';

describe('the testing errors', () => {
  it('are TestingErrors and AcpKitErrors with a literal name, a stable code and cause kept', () => {
    const cause = new Error('root');
    const scripted = new ScriptedAnswerError(TestingErrorCode.UnknownField, 'no such field', {
      form: 'Deploy',
      field: 'target',
      cause,
    });
    const agent = new AgentProcessError(TestingErrorCode.AgentExited, 'gone', { cause });
    for (const [error, name] of [
      [scripted, 'ScriptedAnswerError'],
      [agent, 'AgentProcessError'],
    ] as const) {
      expect(error.name).toBe(name);
      expect(error.cause).toBe(cause);
      expect(TestingError.isInstance(error)).toBe(true);
      expect(AcpKitError.isInstance(error)).toBe(true);
      expect(error instanceof AcpKitError).toBe(true);
    }
    expect(scripted).toMatchObject({ code: 'UNKNOWN_FIELD', form: 'Deploy', field: 'target' });
    expect(ScriptedAnswerError.isInstance(agent)).toBe(false);
    expect(AgentProcessError.isInstance(scripted)).toBe(false);
  });

  it('are recognised across two copies of the package, by their own class and its bases only', async () => {
    vi.resetModules();
    const other = await import('./errors.js');
    expect(other.TestingError).not.toBe(TestingError);
    const error = new other.AgentProcessError('NOT_AN_ACP_AGENT', 'not ACP');
    expect(error instanceof AgentProcessError).toBe(true);
    expect(error instanceof TestingError).toBe(true);
    expect(error instanceof ScriptedAnswerError).toBe(false);
    expect([error, new Error('plain')].filter(AgentProcessError.isInstance)).toEqual([error]);
  });
});
