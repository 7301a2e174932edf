import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { AcpRemoteError, AcpRemoteErrorCode } from '@acpkit/remote';
import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { processIo, stopSignalsFrom, writeLine } from './cli-io.js';
import { CliError, CliErrorCode } from './errors.js';
import { ExitCode, type StopSignal } from './exit-codes.js';

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

  #io: CliIo;

  constructor(io: CliIo) {
    this.#io = io;
  }

  /** The streams, environment and signals of this run; named after the program once it is created. */
  get io(): CliIo {
    return this.#io;
  }

  /**
   * A root commander program wired for this run: usage errors become `Error: <message>` on stderr and exit code
   * 2, `--help`/`--version` print to stdout and exit 0, options after a subcommand's operands are passed through
   * (so `expose node agent.js --flag` keeps `--flag` for the command), and `--help` ends with the exit codes.
   */
  createRootCommand(name: string, description: string, version: string): Command {
    this.#io = { ...this.#io, programName: name };
    const io = this.io;
    const program = new Command(name)
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
    program.addHelpText('after', `\n${EXIT_CODES_HELP}`);
    return program;
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

/** The exit-code line every `--help` of both CLIs ends with (docs/cli.md's table is checked against it). */
const EXIT_CODES_HELP =
  'Exit codes: 0 ok (serve/expose: also a SIGTERM drain that ended in time), 1 runtime failure, 2 usage or configuration error, 130 SIGINT, 143 SIGTERM (serve/expose: the drain timed out, or a second signal).';

// Declared once for both CLIs; each CLI's build inlines it into its published .d.ts (tsup.config.ts), so no
// published type names this private package.
/**
 * Options of `main()`; each defaults to the real process.
 *
 * @example
 * ```ts
 * import { PassThrough } from 'node:stream';
 * const stderr = new PassThrough();
 * const exitCode = await main(['serve', './agent.js', '--port', '0'], { stderr, env: {} });
 * ```
 */
export interface MainOptions {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Where `--token-env` is looked up; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where relative TARGET, `--cwd` and `--answers` paths resolve; default `process.cwd()`. */
  readonly cwd?: string;
  /** Resolves when a long-running command should shut down gracefully; default: on SIGINT or SIGTERM. */
  readonly waitForStopSignal?: () => Promise<StopSignal>;
  /**
   * Subscribes to every stop signal (`acpkit client` cancels a turn on the first SIGINT and quits on the next);
   * returns the unsubscribe function. Default: SIGINT and SIGTERM of the process, or only the first signal of a
   * given `waitForStopSignal`.
   */
  readonly onStopSignal?: (listener: (signal: StopSignal) => void) => () => void;
}

/**
 * Runs a CLI's command line: builds its program for one {@link CliRun} over the real process, with `options`
 * replacing any of its streams, environment and signals, and resolves with the exit code. Both CLIs' `main` is
 * this with their own program.
 *
 * @example
 * ```ts
 * export function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
 *   return runMain(argv, options, (run) => run.createRootCommand('acpremote', 'Serve ACP', '0.1.0'));
 * }
 * ```
 */
export function runMain(
  argv: readonly string[],
  options: MainOptions,
  buildProgram: (run: CliRun) => Command,
): Promise<number> {
  const overrides = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const io: CliIo = { ...processIo(), ...overrides };
  const withSignals: CliIo =
    options.waitForStopSignal !== undefined && options.onStopSignal === undefined
      ? { ...io, onStopSignal: stopSignalsFrom(options.waitForStopSignal) }
      : io;
  const run = new CliRun(withSignals);
  return run.execute(buildProgram(run), argv);
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
  if (CliError.isInstance(error)) return error.exitCode;
  if (isRemoteConfigurationError(error)) return ExitCode.Usage;
  return ExitCode.RuntimeFailure;
}

function isRemoteConfigurationError(error: unknown): boolean {
  return AcpRemoteError.isInstance(error) && REMOTE_CONFIGURATION_CODES.has(error.code);
}

/**
 * The `version` of the package.json one directory above `moduleUrl`: a CLI's `src/*.ts` in the repository and its
 * bundled `dist/*.js` both sit one level below the package root. Read at run time so the build does not inline the
 * whole manifest (with its `workspace:` and `catalog:` ranges) into `dist`.
 *
 * @example
 * ```ts
 * const version = packageVersion(import.meta.url); // '0.1.0'
 * ```
 */
export function packageVersion(moduleUrl: string): string {
  const manifest: unknown = createRequire(moduleUrl)('../package.json');
  const version = (manifest as { version?: unknown }).version;
  if (typeof version !== 'string') {
    throw new CliError(
      CliErrorCode.BrokenInstallation,
      `No version in the package.json next to ${moduleUrl}`,
    );
  }
  return version;
}
