import { describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';

describe('CliError', () => {
  it('keeps code, name and cause', () => {
    const cause = new Error('root');
    const error = new CliError(CliErrorCode.TargetNotFound, 'missing', { cause });
    expect(error.code).toBe('TARGET_NOT_FOUND');
    expect(error.name).toBe('CliError');
    expect(error.cause).toBe(cause);
  });

  it('recognises instances by marker, not by prototype', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('acpkit.cli.error')]: true });
    expect(CliError.isInstance(foreign)).toBe(true);
    expect(CliError.isInstance(new Error('plain'))).toBe(false);
    expect(CliError.isInstance(null)).toBe(false);
  });
});
