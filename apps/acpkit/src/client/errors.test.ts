import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { ClientError, ClientErrorCode } from './errors.js';

describe('ClientError', () => {
  it('keeps its stable code, message and cause', () => {
    const cause = new Error('spawn ENOENT');
    const error = new ClientError(ClientErrorCode.AgentStartFailed, 'Could not start', { cause });
    expect(error.code).toBe('AGENT_START_FAILED');
    expect(error.message).toBe('Could not start');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('ClientError');
  });

  it('recognises its instances by the acpkit.error.client marker', () => {
    expect(ClientError.isInstance(new ClientError(ClientErrorCode.AgentExited, 'gone'))).toBe(true);
    expect(ClientError.isInstance({ [Symbol.for('acpkit.error.client')]: true })).toBe(true);
    expect(ClientError.isInstance(new Error('plain'))).toBe(false);
    expect(ClientError.isInstance(null)).toBe(false);
  });

  it('makes instanceof work across two copies of this code', async () => {
    vi.resetModules();
    const other = await import('./errors.js');
    expect(other.ClientError).not.toBe(ClientError);
    const error = new other.ClientError('AGENT_EXITED', 'gone');
    expect(error instanceof ClientError).toBe(true);
    expect(new Error('plain') instanceof ClientError).toBe(false);
  });

  it('is an AcpKitError, the one root of ACP Kit errors', () => {
    const error = new ClientError(ClientErrorCode.AgentExited, 'x');
    expect(AcpKitError.isInstance(error)).toBe(true);
    expect(error instanceof AcpKitError).toBe(true);
  });
});
