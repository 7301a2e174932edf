import { describe, expect, it } from 'vitest';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';

describe('AcpRemoteError', () => {
  it('keeps code and cause and is recognised across package copies by its Symbol.for marker', () => {
    const cause = new Error('root');
    const error = new AcpRemoteError(AcpRemoteErrorCode.ConnectionFailed, 'cannot connect', { cause });
    expect(error.code).toBe('CONNECTION_FAILED');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('AcpRemoteError');
    expect(AcpRemoteError.isInstance(error)).toBe(true);
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('acpkit.remote.error'), { value: true });
    expect(AcpRemoteError.isInstance(foreign)).toBe(true);
    expect(AcpRemoteError.isInstance(new Error('x'))).toBe(false);
    expect(Object.keys(error)).not.toContain(Symbol.for('acpkit.remote.error').toString());
  });

  it('uses SCREAMING_SNAKE codes', () => {
    for (const code of Object.values(AcpRemoteErrorCode)) expect(code).toMatch(/^[A-Z]+(?:_[A-Z]+)*$/);
  });
});
