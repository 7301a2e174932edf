import { CliError, CliErrorCode } from './errors.js';

/** The token flags as parsed from the command line. */
export interface TokenFlags {
  /** `--bearer-token TOKEN`. */
  readonly bearerToken?: string | undefined;
  /** `--token-env VAR`. */
  readonly tokenEnv?: string | undefined;
}

/** A bearer token and where it came from (the banner references the variable, never the token). */
export interface ResolvedToken {
  readonly token: string;
  /** `flag` for `--bearer-token`, `environment` for `--token-env`. */
  readonly source: 'flag' | 'environment';
  /** The environment variable name when `source` is `environment`. */
  readonly variable?: string;
}

/**
 * Resolves `--bearer-token TOKEN | --token-env VAR` to a token. The two flags are mutually exclusive; a blank
 * token, a blank variable name or an unset/blank variable is an error, never "authentication off". Surrounding
 * whitespace is trimmed (a token pasted with a trailing newline still matches).
 *
 * @param flags - The parsed flags.
 * @param environment - Where `--token-env` is looked up; default `process.env`.
 * @returns The token, or `undefined` when neither flag was given.
 * @throws {@link CliError} with code `USAGE` when both flags are given, `INVALID_CONFIGURATION` when a token is
 * blank or the variable is unset.
 * @example
 * ```ts
 * resolveBearerToken({ tokenEnv: 'ACPREMOTE_TOKEN' }, { ACPREMOTE_TOKEN: 's3cret' });
 * // { token: 's3cret', source: 'environment', variable: 'ACPREMOTE_TOKEN' }
 * ```
 */
export function resolveBearerToken(
  flags: TokenFlags,
  environment: NodeJS.ProcessEnv = process.env,
): ResolvedToken | undefined {
  const { bearerToken, tokenEnv } = flags;
  if (bearerToken !== undefined && tokenEnv !== undefined) {
    throw new CliError(CliErrorCode.Usage, 'Use either --bearer-token or --token-env, not both.');
  }
  if (bearerToken !== undefined) {
    const token = bearerToken.trim();
    if (token === '')
      throw new CliError(CliErrorCode.InvalidConfiguration, '--bearer-token must not be blank.');
    return { token, source: 'flag' };
  }
  if (tokenEnv !== undefined) {
    const variable = tokenEnv.trim();
    if (variable === '')
      throw new CliError(CliErrorCode.InvalidConfiguration, '--token-env must name a variable.');
    const token = (environment[variable] ?? '').trim();
    if (token === '') {
      throw new CliError(
        CliErrorCode.InvalidConfiguration,
        `Environment variable ${variable} (from --token-env) is not set or is empty.`,
      );
    }
    return { token, source: 'environment', variable };
  }
  return undefined;
}
