import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { AiSdkAgentError, AiSdkAgentErrorCode, AiSdkOptionError, invalidOption } from './errors.js';

describe('AiSdkAgentError', () => {
  it('is an AcpKitError with a stable code, also when it comes from another copy of the package', async () => {
    const error = new AiSdkAgentError(AiSdkAgentErrorCode.InvalidOption, 'bad', { cause: 'why' });
    expect(error).toBeInstanceOf(AcpKitError);
    expect(error).toMatchObject({
      name: 'AiSdkAgentError',
      code: 'INVALID_OPTION',
      message: 'bad',
      cause: 'why',
    });
    vi.resetModules();
    const other = await import('./errors.js');
    const foreign = new other.AiSdkAgentError('TOOL_OUTSIDE_SESSION', 'elsewhere');
    expect(other.AiSdkAgentError).not.toBe(AiSdkAgentError);
    expect(AiSdkAgentError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof AiSdkAgentError).toBe(true);
    expect(AiSdkAgentError.isInstance(new Error('plain'))).toBe(false);
  });

  it('gives an invalid option its own class in the family, with the option as a field', () => {
    const error = invalidOption('maxSteps', 'a positive integer', 0, { label: 'the maxSteps option' });
    expect(error).toBeInstanceOf(AiSdkAgentError);
    expect(AiSdkOptionError.isInstance(error)).toBe(true);
    expect(AiSdkOptionError.isInstance(new AiSdkAgentError('INVALID_OPTION', 'bare'))).toBe(false);
    expect(error).toMatchObject({
      name: 'AiSdkOptionError',
      code: 'INVALID_OPTION',
      option: 'maxSteps',
      expected: 'a positive integer',
      received: '0',
      message: 'the maxSteps option must be a positive integer, got 0.',
    });
  });
});
