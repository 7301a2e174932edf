import { AcpRemoteError, AcpRemoteErrorCode } from '@acpkit/remote';
import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { writeLine } from './cli-io.js';
import { CliError } from './errors.js';
import { ExitCode } from './exit-codes.js';

/** `@acpkit/remote` error codes that describe a bad configuration rather than a failure at run time. */
const REMOTE_CONFIGURATION_CODES: ReadonlySet<string> = new Set([
  AcpRemoteErrorCode.InvalidOption,
  AcpRemoteErrorCode.UnauthenticatedPublicBind,
]);

/**
 * Holds the exit code of one CLI run. Commands wrap their handlers with {@link CliRun.action} so the handler's
 * returned exit code becomes the run's exit code.
 *
 * @example
 * ```ts
 * const run = new CliRun(processIo());
 * const program = run.createRootCommand('acpremote', 'Serve ACP over WebSocket', '0.1.0');
 * program.command('mirror <url>').action(run.action(async (url: string) => mirror(url, run.io)));
 * process.exit(await run.execute(program, process.argv.slice(2)));
 * ```
 */
export class CliRun {
  /** The exit code the last action returned. */
  exitCode: number = ExitCode.Ok;

  constructor(readonly io: CliIo) {}

  /**
   * A root commander program wired for this run: usage errors become `Error: <message>` on stderr and exit code
   * 2, `--help`/`--version` print to stdout and exit 0, and options after a subcommand's operands are passed
   * through (so `expose node agent.js --flag` keeps `--flag` for the command).
   */
  createRootCommand(name: string, description: string, version: string): Command {
    const io = this.io;
    return new Command(name)
      .description(description)
      .version(version, '-V, --version', 'Print the version and exit.')
      .helpOption('-h, --help', 'Show help for the command.')
      .helpCommand('help [command]', 'Show help for a command.')
      .enablePositionalOptions()
      .showSuggestionAfterError(true)
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: (text, write) => write(`Error: ${text.replace(/^error: /i, '')}`),
      });
  }

  /** Wraps a handler that returns an exit code into a commander action. */
  action<Arguments extends unknown[]>(
    handler: (...parameters: Arguments) => Promise<number>,
  ): (...parameters: Arguments) => Promise<void> {
    return async (...parameters: Arguments) => {
      this.exitCode = await handler(...parameters);
    };
  }

  /**
   * Parses `argv` (the user arguments, without `node` and the script) and runs the chosen command.
   *
   * @returns The process exit code: 0 ok, 1 runtime failure, 2 usage or configuration error, 130/143 after a
   * graceful shutdown on SIGINT/SIGTERM.
   */
  async execute(program: Command, argv: readonly string[]): Promise<number> {
    try {
      await program.parseAsync([...argv], { from: 'user' });
      return this.exitCode;
    } catch (error) {
      return reportError(error, this.io);
    }
  }
}

/**
 * Maps an error that escaped a command to an exit code and prints `Error: <message>` to stderr (commander has
 * already printed its own usage errors).
 *
 * @example
 * ```ts
 * return reportError(new CliError(CliErrorCode.Usage, 'Provide exactly one of TARGET or --addr.'), io); // 2
 * ```
 */
export function reportError(error: unknown, io: Pick<CliIo, 'stderr'>): number {
  if (error instanceof CommanderError) {
    // --help, --version and `help [command]` exit 0; help printed because no subcommand was given (exit code 1
    // from commander) and every usage error (message already written through outputError) exit 2.
    return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(io.stderr, `Error: ${message}`);
  if (CliError.isInstance(error)) return ExitCode.Usage;
  if (isRemoteConfigurationError(error)) return ExitCode.Usage;
  return ExitCode.RuntimeFailure;
}

function isRemoteConfigurationError(error: unknown): boolean {
  return AcpRemoteError.isInstance(error) && REMOTE_CONFIGURATION_CODES.has(error.code);
}
