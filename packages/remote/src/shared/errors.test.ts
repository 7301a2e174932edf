// Unit tests of AcpRemoteError and its branding.
import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { AcpRemoteError, AcpRemoteErrorCode } from './errors.js';

describe('AcpRemoteError', () => {
  it('keeps code and cause and is recognised by its Symbol.for marker', () => {
    const cause = new Error('root');
    const error = new AcpRemoteError(AcpRemoteErrorCode.ConnectionFailed, 'cannot connect', { cause });
    expect(error.code).toBe('CONNECTION_FAILED');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('AcpRemoteError');
    expect(AcpRemoteError.isInstance(error)).toBe(true);
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('acpkit.error.remote'), { value: true });
    expect(AcpRemoteError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof AcpRemoteError).toBe(true);
    expect(AcpRemoteError.isInstance(new Error('x'))).toBe(false);
    expect(new Error('x') instanceof AcpRemoteError).toBe(false);
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify(error)).not.toContain('acpkit');
  });

  it('makes instanceof work across two copies of the package', async () => {
    vi.resetModules();
    const other = await import('./errors.js');
    expect(other.AcpRemoteError).not.toBe(AcpRemoteError);
    const error = new other.AcpRemoteError('LISTEN_FAILED', 'port in use');
    expect(error instanceof AcpRemoteError).toBe(true);
    expect(AcpRemoteError.isInstance(error)).toBe(true);
    expect(new AcpRemoteError('INVALID_OPTION', 'bad') instanceof other.AcpRemoteError).toBe(true);
  });

  it('is a family base: a subclass is an AcpRemoteError, and the base is not the subclass', () => {
    // A subclass that does not brand itself (as a user's might) keeps plain instanceof semantics for itself.
    class RetryableRemoteError extends AcpRemoteError<'CONNECTION_FAILED'> {
      override readonly name: string = 'RetryableRemoteError';
    }
    const retryable = new RetryableRemoteError('CONNECTION_FAILED', 'try again');
    expect(retryable instanceof AcpRemoteError).toBe(true);
    expect(AcpRemoteError.isInstance(retryable)).toBe(true);
    expect(retryable instanceof RetryableRemoteError).toBe(true);
    expect(new AcpRemoteError('CONNECTION_FAILED', 'x') instanceof RetryableRemoteError).toBe(false);
  });

  it('is an AcpKitError, the one root, and its isInstance works unbound', () => {
    const error = new AcpRemoteError('LISTEN_FAILED', 'port in use');
    expect(AcpKitError.isInstance(error)).toBe(true);
    expect(error instanceof AcpKitError).toBe(true);
    expect([error, new Error('x'), new AcpKitError('OTHER', 'y')].filter(AcpRemoteError.isInstance)).toEqual([
      error,
    ]);
  });

  it('uses SCREAMING_SNAKE codes', () => {
    for (const code of Object.values(AcpRemoteErrorCode)) expect(code).toMatch(/^[A-Z]+(?:_[A-Z]+)*$/);
  });
});
