import { describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';
import { resolveBearerToken } from './token.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(CliError.isInstance(error)).toBe(true);
    return (error as CliError).code;
  }
  return undefined;
}

describe('resolveBearerToken', () => {
  it('returns undefined when neither flag is given', () => {
    expect(resolveBearerToken({}, {})).toBeUndefined();
  });

  it('reads --bearer-token and trims it', () => {
    expect(resolveBearerToken({ bearerToken: '  abc \n' }, {})).toEqual({ token: 'abc', source: 'flag' });
  });

  it('reads the variable named by --token-env', () => {
    expect(resolveBearerToken({ tokenEnv: 'MY_TOKEN' }, { MY_TOKEN: 'xyz' })).toEqual({
      token: 'xyz',
      source: 'environment',
      variable: 'MY_TOKEN',
    });
  });

  it('throws USAGE when both flags are given', () => {
    expect(codeOf(() => resolveBearerToken({ bearerToken: 'a', tokenEnv: 'B' }, { B: 'b' }))).toBe(
      CliErrorCode.Usage,
    );
  });

  it('throws INVALID_CONFIGURATION when the token is blank instead of turning auth off', () => {
    expect(codeOf(() => resolveBearerToken({ bearerToken: '   ' }, {}))).toBe(
      CliErrorCode.InvalidConfiguration,
    );
  });

  it('throws INVALID_CONFIGURATION when the variable is unset, blank, or unnamed', () => {
    expect(codeOf(() => resolveBearerToken({ tokenEnv: 'UNSET' }, {}))).toBe(
      CliErrorCode.InvalidConfiguration,
    );
    expect(codeOf(() => resolveBearerToken({ tokenEnv: 'BLANK' }, { BLANK: ' \t' }))).toBe(
      CliErrorCode.InvalidConfiguration,
    );
    expect(codeOf(() => resolveBearerToken({ tokenEnv: ' ' }, {}))).toBe(CliErrorCode.InvalidConfiguration);
  });

  it('names the variable but never the token in its error message', () => {
    try {
      resolveBearerToken({ tokenEnv: 'ACPREMOTE_TOKEN' }, {});
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('ACPREMOTE_TOKEN');
    }
  });
});
