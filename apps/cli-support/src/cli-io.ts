import type { Readable, Writable } from 'node:stream';
import { exitCodeForSignal, type StopSignal } from './exit-codes.js';

/**
 * Everything a CLI command touches outside its arguments. The bins use {@link processIo}; tests pass their own
 * streams, environment and stop trigger so a command can run in-process.
 */
export interface CliIo {
  /** JSON-RPC input of the stdio commands (`acpkit run`, `acpremote mirror`). */
  readonly stdin: Readable;
  /** JSON-RPC output of the stdio commands; `--help` and `--version` also print here. Nothing else does. */
  readonly stdout: Writable;
  /** Banners, warnings, logs and `Error: <message>` lines. */
  readonly stderr: Writable;
  /** Where `--token-env` is looked up. */
  readonly env: NodeJS.ProcessEnv;
  /** Where relative TARGET paths resolve. */
  readonly cwd: string;
  /**
   * Resolves with the signal that asks a long-running command to stop. Called once per run, before the command
   * starts serving, so a signal during start-up is not lost.
   */
  readonly waitForStopSignal: () => Promise<StopSignal>;
  /**
   * Calls `listener` for every SIGINT/SIGTERM until the returned function is called. For commands that react to
   * each signal themselves (`acpkit client`: the first Ctrl+C cancels the turn, the second quits); while a listener
   * is subscribed, the signal does not end the process by itself.
   */
  readonly onStopSignal: (listener: (signal: StopSignal) => void) => () => void;
  /**
   * The CLI running the command (`acpkit`, `acpremote`): its log lines start with it, and banners suggest its own
   * commands. Set by {@link CliRun.createRootCommand}; `acpremote` when absent.
   */
  readonly programName?: string;
}

/**
 * The real process: `process.stdin/stdout/stderr`, `process.env`, `process.cwd()`, and SIGINT/SIGTERM. After the
 * first signal starts the graceful shutdown, a second one exits at once with the matching code.
 *
 * @example
 * ```ts
 * process.exit(await main(process.argv.slice(2), processIo()));
 * ```
 */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    waitForStopSignal: () =>
      new Promise<StopSignal>((resolve) => {
        const onSignal = (signal: StopSignal): void => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          const forceExit = (second: StopSignal): void => {
            process.stderr.write(`Received ${second} again; exiting without waiting for the shutdown.\n`);
            process.exit(exitCodeForSignal(second));
          };
          process.once('SIGINT', forceExit);
          process.once('SIGTERM', forceExit);
          resolve(signal);
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      }),
    onStopSignal: (listener) => {
      const onSignal = (signal: StopSignal): void => listener(signal);
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      return () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      };
    },
  };
}

/**
 * An {@link CliIo.onStopSignal} built from a one-shot `waitForStopSignal`: it delivers only the first signal. Used
 * when a caller of `main()` overrides `waitForStopSignal` alone.
 *
 * @example
 * ```ts
 * const onStopSignal = stopSignalsFrom(() => new Promise(() => {}));
 * ```
 */
export function stopSignalsFrom(waitForStopSignal: () => Promise<StopSignal>): CliIo['onStopSignal'] {
  return (listener) => {
    let subscribed = true;
    void waitForStopSignal().then((signal) => {
      if (subscribed) listener(signal);
    });
    return () => {
      subscribed = false;
    };
  };
}

/**
 * Writes one line to a stream (stderr for everything human-readable).
 *
 * @example
 * ```ts
 * writeLine(io.stderr, 'Shutting down');
 * ```
 */
export function writeLine(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  // A reader that has already gone (EPIPE) must not crash the exit path: there is nothing left to flush to. The
  // listener goes on first and stays, because a failed write destroys the stream at once but emits its error a tick
  // later — and the process is exiting anyway.
  stream.on('error', () => {});
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) {
      resolve();
      return;
    }
    stream.on('error', () => resolve());
    stream.write('', () => resolve());
  });
}

/**
 * Lets queued stdout/stderr output drain, then exits the process with `exitCode` even if stdin or a socket
 * would keep the event loop alive. Waits at most one second for a stuck stream.
 *
 * @example
 * ```ts
 * await exitAfterFlush(await main(process.argv.slice(2)));
 * ```
 */
export async function exitAfterFlush(exitCode: number): Promise<never> {
  const drained = Promise.all([flush(process.stdout), flush(process.stderr)]);
  const giveUp = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
  await Promise.race([drained, giveUp]);
  process.exit(exitCode);
}
