import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';
import { describeTokenSource, resolveBearerToken } from './token.js';

const directory = mkdtempSync(join(tmpdir(), 'acpkit-token-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

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

  it('throws USAGE when more than one token flag is given', () => {
    expect(codeOf(() => resolveBearerToken({ bearerToken: 'a', tokenEnv: 'B' }, { B: 'b' }))).toBe(
      CliErrorCode.Usage,
    );
    expect(codeOf(() => resolveBearerToken({ tokenFile: '/x', tokenEnv: 'B' }, { B: 'b' }))).toBe(
      CliErrorCode.Usage,
    );
  });

  it('reads --token-file once, trimmed, and never puts the token in the environment', () => {
    const file = join(directory, 'token');
    writeFileSync(file, 'from-a-file\n', { mode: 0o600 });
    const environment: NodeJS.ProcessEnv = {};
    expect(resolveBearerToken({ tokenFile: file }, environment)).toEqual({
      token: 'from-a-file',
      source: 'file',
      file,
    });
    expect(environment).toEqual({});
  });

  it('warns about a token file other users can read', () => {
    const file = join(directory, 'shared-token');
    writeFileSync(file, 'shared');
    chmodSync(file, 0o644);
    expect(resolveBearerToken({ tokenFile: file }, {})?.warning).toBe(
      `Warning: the token file ${file} can be read by other users (mode 644); chmod 600 it.`,
    );
  });

  it('refuses a missing, empty or unnamed token file with INVALID_CONFIGURATION', () => {
    const empty = join(directory, 'empty');
    writeFileSync(empty, ' \n', { mode: 0o600 });
    for (const tokenFile of [join(directory, 'missing'), empty, ' ']) {
      expect(codeOf(() => resolveBearerToken({ tokenFile }, {}))).toBe(CliErrorCode.InvalidConfiguration);
    }
  });

  it('describes each source the way a person types it', () => {
    expect(describeTokenSource({ token: 't', source: 'flag' })).toBe('--bearer-token');
    expect(describeTokenSource({ token: 't', source: 'environment', variable: 'V' })).toBe('--token-env V');
    expect(describeTokenSource({ token: 't', source: 'file', file: '/run/t' })).toBe('--token-file /run/t');
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
