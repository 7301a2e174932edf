import { describe, expect, it } from 'vitest';
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

  it('recognises its instances by brand, including copies from another bundle', () => {
    expect(ClientError.isInstance(new ClientError(ClientErrorCode.AgentExited, 'gone'))).toBe(true);
    expect(ClientError.isInstance({ [Symbol.for('acpkit.client.error')]: true })).toBe(true);
    expect(ClientError.isInstance(new Error('plain'))).toBe(false);
    expect(ClientError.isInstance(null)).toBe(false);
  });
});
