import { brandErrorClass, isBrandedInstance } from '@acpkit/internal-branding';

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
export class ClientError<Code extends ClientErrorCode = ClientErrorCode> extends Error {
  static {
    brandErrorClass(ClientError, 'acpkit.error.client');
  }

  override readonly name: string = 'ClientError';
  /** Stable machine-readable code. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Like `instanceof`, but also true for errors created by another copy of this code. */
  static isInstance(value: unknown): value is ClientError {
    return isBrandedInstance(ClientError, value);
  }

  /** Makes `instanceof` check the class's own marker, so it also recognises errors from another copy of this code. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    return isBrandedInstance(this, value);
  }
}
