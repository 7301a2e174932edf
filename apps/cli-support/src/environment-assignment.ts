import { CliError, CliErrorCode } from './errors.js';

/**
 * Parses one `--env KEY=VALUE` override. The value is everything after the first `=` and may be empty
 * (`EMPTY=` sets `EMPTY` to `''`).
 *
 * @throws {@link CliError} with code `USAGE` when there is no `=`, the key is empty, or either part contains a
 * NUL character (which no process environment can hold).
 * @example
 * ```ts
 * parseEnvironmentAssignment('LOG_LEVEL=debug'); // ['LOG_LEVEL', 'debug']
 * parseEnvironmentAssignment('EMPTY='); // ['EMPTY', '']
 * ```
 */
export function parseEnvironmentAssignment(assignment: string): [key: string, value: string] {
  const separator = assignment.indexOf('=');
  const key = separator === -1 ? '' : assignment.slice(0, separator);
  if (separator <= 0 || key.trim() === '') {
    throw new CliError(
      CliErrorCode.Usage,
      `Environment overrides must use KEY=VALUE (got ${JSON.stringify(assignment)}).`,
    );
  }
  const value = assignment.slice(separator + 1);
  if (assignment.includes('\0')) {
    throw new CliError(
      CliErrorCode.Usage,
      `Environment override ${JSON.stringify(key)} contains a NUL character.`,
    );
  }
  return [key, value];
}

/**
 * Parses every `--env` override into one record; a later assignment to the same key wins.
 *
 * @throws {@link CliError} as {@link parseEnvironmentAssignment} does.
 * @example
 * ```ts
 * parseEnvironmentAssignments(['A=1', 'B=', 'A=2']); // { A: '2', B: '' }
 * ```
 */
export function parseEnvironmentAssignments(assignments: readonly string[]): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const assignment of assignments) {
    const [key, value] = parseEnvironmentAssignment(assignment);
    environment[key] = value;
  }
  return environment;
}
