import { brandErrorClass, isBrandedInstance } from '@acpkit/internal-branding';

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
} as const;
/** Union of the {@link CliErrorCode} values. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/**
 * Base error of the `acpremote` and `acpkit` command-line tools. Every CLI error is a usage or configuration
 * problem, so the CLIs report it as `Error: <message>` and exit with code 2.
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
export class CliError<Code extends CliErrorCode = CliErrorCode> extends Error {
  static {
    brandErrorClass(CliError, 'acpkit.error.cli');
  }

  override readonly name: string = 'CliError';
  /** Stable machine-readable code. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Like `instanceof`, but also true for errors created by another copy of this code (each CLI bundles one). */
  static isInstance(value: unknown): value is CliError {
    return isBrandedInstance(CliError, value);
  }

  /** Makes `instanceof` check the class's own marker, so it also recognises errors from another copy of this code. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    return isBrandedInstance(this, value);
  }
}
