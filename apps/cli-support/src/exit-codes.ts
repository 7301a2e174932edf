/**
 * Process exit codes of the `acpremote` and `acpkit` CLIs. 130 and 143 follow the shell convention of 128 plus
 * the signal number, and are used only after a graceful shutdown that reaped every child process.
 *
 * @example
 * ```ts
 * process.exitCode = signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated;
 * ```
 */
export const ExitCode = {
  Ok: 0,
  RuntimeFailure: 1,
  Usage: 2,
  Interrupted: 130,
  Terminated: 143,
} as const;
/** Union of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Signals the CLIs stop on. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * The exit code for a run that stopped because of `signal`.
 *
 * @example
 * ```ts
 * exitCodeForSignal('SIGINT'); // 130
 * ```
 */
export function exitCodeForSignal(signal: StopSignal): ExitCode {
  return signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated;
}
