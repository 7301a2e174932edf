import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeForSignal } from './exit-codes.js';

describe('exitCodeForSignal', () => {
  it('follows the 128 + signal number convention', () => {
    expect(exitCodeForSignal('SIGINT')).toBe(ExitCode.Interrupted);
    expect(exitCodeForSignal('SIGINT')).toBe(130);
    expect(exitCodeForSignal('SIGTERM')).toBe(ExitCode.Terminated);
    expect(exitCodeForSignal('SIGTERM')).toBe(143);
  });
});
