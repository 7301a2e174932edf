// ClientError, the errors of `acpkit client`, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

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
export class ClientError<Code extends ClientErrorCode = ClientErrorCode> extends AcpKitError<Code> {
  /** Like `instanceof`, but also true for errors created by another copy of this code. */
  static override readonly isInstance = brandErrorClass(ClientError, 'acpkit.error.client');
  override readonly name: string = 'ClientError';
}
