// CliError, the errors of the command-line tools, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Stable codes of {@link CliError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * if (CliError.isInstance(error) && error.code === CliErrorCode.TargetNotFound) console.error('check the path');
 * ```
 */
export const CliErrorCode = {
  /** The command line is malformed: an unknown flag, a missing operand, a bad value. */
  Usage: 'USAGE',
  /** The flags parse but the configuration is unusable (blank token, unset token variable, ...). */
  InvalidConfiguration: 'INVALID_CONFIGURATION',
  /** The TARGET module file does not exist. */
  TargetNotFound: 'TARGET_NOT_FOUND',
  /** The TARGET module could not be imported (syntax error, missing dependency, top-level throw). */
  TargetImportFailed: 'TARGET_IMPORT_FAILED',
  /** The TARGET module has no export with the requested name (or no default export). */
  TargetExportMissing: 'TARGET_EXPORT_MISSING',
  /** The TARGET export is neither an SDK agent app nor a factory that returns one. */
  TargetNotAgent: 'TARGET_NOT_AGENT',
  /** `acpkit client`: the agent process ended (or closed its stdout) before the conversation was over. */
  AgentExited: 'AGENT_EXITED',
  /** The CLI's own installation is broken (its package.json has no version). */
  BrokenInstallation: 'BROKEN_INSTALLATION',
} as const;
/** Union of the {@link CliErrorCode} values. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** The codes of a failure at run time (exit code 1); every other {@link CliErrorCode} is a usage error (exit code 2). */
const RUNTIME_FAILURE_CODES: ReadonlySet<CliErrorCode> = new Set([
  CliErrorCode.AgentExited,
  CliErrorCode.BrokenInstallation,
]);

/**
 * The one error class of the `acpremote` and `acpkit` command-line tools (`acpkit client` included). The CLIs
 * report it as `Error: <message>` and exit with {@link CliError.exitCode}: 2 for a usage or configuration problem,
 * 1 for a failure at run time (`AGENT_EXITED`, `BROKEN_INSTALLATION`).
 *
 * @example
 * ```ts
 * try {
 *   await loadTarget('./agent.ts:missing');
 * } catch (error) {
 *   if (CliError.isInstance(error)) console.error(`Error: ${error.message} (${error.code})`);
 * }
 * ```
 */
export class CliError<Code extends CliErrorCode = CliErrorCode> extends AcpKitError<Code> {
  /** Like `instanceof`, but also true for errors created by another copy of this code. */
  static override readonly isInstance = brandErrorClass(CliError, 'acpkit.error.cli');
  override readonly name: string = 'CliError';

  /** The process exit code this error ends a CLI run with: 1 for a failure at run time, 2 for anything else. */
  get exitCode(): 1 | 2 {
    return RUNTIME_FAILURE_CODES.has(this.code) ? 1 : 2;
  }
}
