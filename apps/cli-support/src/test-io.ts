import { PassThrough } from 'node:stream';
import type { CliIo } from './cli-io.js';
import type { StopSignal } from './exit-codes.js';

/** An in-memory {@link CliIo} for tests: captured output and a stop signal the test fires. */
export interface TestIo extends CliIo {
  readonly stdin: PassThrough;
  readonly stdout: PassThrough;
  readonly stderr: PassThrough;
  /** Text written to stdout so far. */
  stdoutText(): string;
  /** Text written to stderr so far. */
  stderrText(): string;
  /** Resolves a pending (or the next) `waitForStopSignal()` with `signal`, and calls every `onStopSignal` listener. */
  stop(signal: StopSignal): void;
  /** Resolves with the first stderr match of `pattern`, waiting for more output as needed. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
}

/**
 * Creates a {@link TestIo}. Pass `collectStdout: false` when a JSON-RPC client reads stdout itself.
 *
 * @example
 * ```ts
 * const io = createTestIo();
 * const exitCode = run(io);
 * await io.waitForStderr(/Serving ACP WebSocket at (\S+)/);
 * io.stop('SIGTERM');
 * expect(await exitCode).toBe(143);
 * ```
 */
export function createTestIo(
  options: { env?: NodeJS.ProcessEnv; cwd?: string; collectStdout?: boolean } = {},
): TestIo {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let stdoutText = '';
  let stderrText = '';
  const stderrListeners = new Set<() => void>();
  if (options.collectStdout !== false) {
    stdout.on('data', (chunk: Buffer) => {
      stdoutText += chunk.toString('utf8');
    });
  }
  stderr.on('data', (chunk: Buffer) => {
    stderrText += chunk.toString('utf8');
    for (const listener of stderrListeners) listener();
  });
  let resolveStop: (signal: StopSignal) => void = () => {};
  const stopped = new Promise<StopSignal>((resolve) => {
    resolveStop = resolve;
  });
  const signalListeners = new Set<(signal: StopSignal) => void>();
  return {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    waitForStopSignal: () => stopped,
    onStopSignal: (listener) => {
      const subscription = (signal: StopSignal) => listener(signal);
      signalListeners.add(subscription);
      return () => signalListeners.delete(subscription);
    },
    stdoutText: () => stdoutText,
    stderrText: () => stderrText,
    stop: (signal) => {
      resolveStop(signal);
      for (const listener of [...signalListeners]) listener(signal);
    },
    waitForStderr: (pattern) =>
      new Promise((resolve) => {
        const check = () => {
          const match = stderrText.match(pattern);
          if (!match) return;
          stderrListeners.delete(check);
          resolve(match);
        };
        stderrListeners.add(check);
        check();
      }),
  };
}
