import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { AiSdkAgentError, AiSdkAgentErrorCode } from './errors.js';

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
});
