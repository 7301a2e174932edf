import { AcpKitError, OptionError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { AiSdkAgentError } from './errors.js';
import { OptionError as ExportedOptionError } from './index.js';

describe('AiSdkAgentError', () => {
  it('is an AcpKitError with a stable code, also when it comes from another copy of the package', async () => {
    const error = new AiSdkAgentError('TOOL_OUTSIDE_SESSION', 'bad', { cause: 'why' });
    expect(error).toBeInstanceOf(AcpKitError);
    expect(error).toMatchObject({
      name: 'AiSdkAgentError',
      code: 'TOOL_OUTSIDE_SESSION',
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

  it('re-exports the one OptionError of @acpkit/errors for bad options (the same class)', () => {
    expect(ExportedOptionError).toBe(OptionError);
  });
});
