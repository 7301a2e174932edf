const CLIENT_ERROR_MARKER = Symbol.for('acpkit.client.error');

/**
 * Stable codes of {@link ClientError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * if (ClientError.isInstance(error) && error.code === ClientErrorCode.AgentStartFailed) process.exitCode = 1;
 * ```
 */
export const ClientErrorCode = {
  /** The command line is unusable: no agent command, a `--cwd` that is not a directory. */
  InvalidOption: 'INVALID_OPTION',
  /** The agent command could not be started (not found, not executable). */
  AgentStartFailed: 'AGENT_START_FAILED',
  /** The agent process ended (or closed its stdout) before the conversation was over. */
  AgentExited: 'AGENT_EXITED',
} as const;
/** Union of the {@link ClientErrorCode} values. */
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/**
 * Error of `acpkit client`. `INVALID_OPTION` exits with code 2; the others with code 1.
 *
 * @example
 * ```ts
 * try {
 *   await runClient(options);
 * } catch (error) {
 *   if (ClientError.isInstance(error)) console.error(`Error: ${error.message}`);
 * }
 * ```
 */
export class ClientError extends Error {
  /** Brand checked by {@link ClientError.isInstance}, which works across copies of this code. */
  readonly [CLIENT_ERROR_MARKER] = true;
  override readonly name: string = 'ClientError';
  /** Stable machine-readable code. */
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Like `instanceof`, but also true for errors created by another copy of this code. */
  static isInstance(value: unknown): value is ClientError {
    return typeof value === 'object' && value !== null && CLIENT_ERROR_MARKER in value;
  }
}
