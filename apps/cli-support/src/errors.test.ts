import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';

describe('CliError', () => {
  it('keeps code, name and cause', () => {
    const cause = new Error('root');
    const error = new CliError(CliErrorCode.TargetNotFound, 'missing', { cause });
    expect(error.code).toBe('TARGET_NOT_FOUND');
    expect(error.name).toBe('CliError');
    expect(error.cause).toBe(cause);
  });

  it('recognises instances by the acpkit.error.cli marker, not by prototype', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('acpkit.error.cli')]: true });
    expect(CliError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof CliError).toBe(true);
    expect(CliError.isInstance(new Error('plain'))).toBe(false);
    expect(CliError.isInstance(null)).toBe(false);
  });

  it('makes instanceof work across two copies of this code (each CLI bundles one)', async () => {
    vi.resetModules();
    const other = await import('./errors.js');
    expect(other.CliError).not.toBe(CliError);
    const error = new other.CliError('USAGE', 'unknown flag');
    expect(error instanceof CliError).toBe(true);
    expect(CliError.isInstance(error)).toBe(true);
  });

  it('is an AcpKitError, the one root of ACP Kit errors', () => {
    const error = new CliError(CliErrorCode.Usage, 'x');
    expect(AcpKitError.isInstance(error)).toBe(true);
    expect(error instanceof AcpKitError).toBe(true);
  });

  it('exits 2 for a usage or configuration problem and 1 for a failure at run time', () => {
    expect(new CliError(CliErrorCode.Usage, 'x').exitCode).toBe(2);
    expect(new CliError(CliErrorCode.TargetNotAgent, 'x').exitCode).toBe(2);
    expect(new CliError(CliErrorCode.AgentExited, 'gone').exitCode).toBe(1);
    expect(new CliError(CliErrorCode.BrokenInstallation, 'no version').exitCode).toBe(1);
  });
});
