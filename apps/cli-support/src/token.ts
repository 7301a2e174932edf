import { readFileSync, statSync } from 'node:fs';
import { CliError, CliErrorCode } from './errors.js';

/** The token flags as parsed from the command line. */
export interface TokenFlags {
  /** `--bearer-token TOKEN`. */
  readonly bearerToken?: string | undefined;
  /** `--token-env VAR`. */
  readonly tokenEnv?: string | undefined;
  /** `--token-file FILE`. */
  readonly tokenFile?: string | undefined;
}

/** A bearer token and where it came from (the banner references the variable or file, never the token). */
export interface ResolvedToken {
  readonly token: string;
  /** `flag` for `--bearer-token`, `environment` for `--token-env`, `file` for `--token-file`. */
  readonly source: 'flag' | 'environment' | 'file';
  /** The environment variable name when `source` is `environment`. */
  readonly variable?: string;
  /** The file path when `source` is `file`. */
  readonly file?: string;
  /** A caution for stderr, e.g. a token file other users can read. */
  readonly warning?: string;
}

/**
 * How a person reads where the token came from, for messages: `--token-env ACPREMOTE_TOKEN`, `--token-file path`,
 * `--bearer-token`.
 *
 * @example
 * ```ts
 * describeTokenSource({ token: 'x', source: 'environment', variable: 'T' }); // '--token-env T'
 * ```
 */
export function describeTokenSource(token: ResolvedToken): string {
  if (token.source === 'environment') return `--token-env ${token.variable}`;
  if (token.source === 'file') return `--token-file ${token.file}`;
  return '--bearer-token';
}

/** The `--token-file` names that mean "this process's stdin". */
export const STDIN_TOKEN_FILES: ReadonlySet<string> = new Set(['-', '/dev/stdin']);

function readTokenFile(path: string): ResolvedToken {
  let text: string;
  try {
    // A file, a shell's <(...), or stdin (`-`): read once at start, never kept in the environment. Stdin is read
    // through its descriptor, because /dev/stdin cannot be opened when it is a socket.
    text = readFileSync(STDIN_TOKEN_FILES.has(path) ? 0 : path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CliError(CliErrorCode.InvalidConfiguration, `Cannot read --token-file ${path}: ${code}.`, {
      cause: error,
    });
  }
  const token = text.trim();
  if (token === '') {
    throw new CliError(
      CliErrorCode.InvalidConfiguration,
      `The token file ${path} (from --token-file) is empty.`,
    );
  }
  let warning: string | undefined;
  try {
    const stats = statSync(path);
    if (stats.isFile() && (stats.mode & 0o077) !== 0) {
      warning = `Warning: the token file ${path} can be read by other users (mode ${(stats.mode & 0o777).toString(8)}); chmod 600 it.`;
    }
  } catch {
    // A pipe that is gone after reading: nothing to check.
  }
  return { token, source: 'file', file: path, ...(warning ? { warning } : {}) };
}

/**
 * Resolves `--bearer-token TOKEN | --token-env VAR | --token-file FILE` to a token. The flags are mutually exclusive;
 * a blank token, a blank variable name, an unset/blank variable, or an unreadable/empty file is an error, never
 * "authentication off". Surrounding whitespace is trimmed (a token pasted with a trailing newline still matches).
 * Which characters a token may hold is `@acpkit/remote`'s rule, checked when the server or the mirror starts.
 *
 * @param flags - The parsed flags.
 * @param environment - Where `--token-env` is looked up; default `process.env`.
 * @returns The token, or `undefined` when no token flag was given.
 * @throws {@link CliError} with code `USAGE` when more than one flag is given, `INVALID_CONFIGURATION` when a
 * token is blank, the variable is unset or the file cannot be read.
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
  const { bearerToken, tokenEnv, tokenFile } = flags;
  const given = [bearerToken, tokenEnv, tokenFile].filter((value) => value !== undefined).length;
  if (given > 1) {
    throw new CliError(CliErrorCode.Usage, 'Use only one of --bearer-token, --token-env and --token-file.');
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
  if (tokenFile !== undefined) {
    if (tokenFile.trim() === '') {
      throw new CliError(CliErrorCode.InvalidConfiguration, '--token-file must name a file.');
    }
    return readTokenFile(tokenFile);
  }
  return undefined;
}
