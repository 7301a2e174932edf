import { AcpRemoteError, AcpRemoteErrorCode } from '@acpkit/remote';
import { describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from './errors.js';
import { CliRun, packageVersion, runMain } from './run-program.js';
import { createTestIo } from './test-io.js';

function programThatThrows(error: unknown) {
  const io = createTestIo();
  const run = new CliRun(io);
  const program = run.createRootCommand('tool', 'A test tool', '1.2.3');
  program.command('fail').action(
    run.action(async () => {
      throw error;
    }),
  );
  program.command('succeed <value>').action(run.action(async (value: string) => Number(value)));
  return { io, run, program };
}

describe('CliRun.execute', () => {
  it('returns the exit code the action returned', async () => {
    const { run, program } = programThatThrows(undefined);
    expect(await run.execute(program, ['succeed', '7'])).toBe(7);
  });

  it('exits 0 for --help and --version, printing to stdout only', async () => {
    const help = programThatThrows(undefined);
    expect(await help.run.execute(help.program, ['--help'])).toBe(0);
    expect(help.io.stdoutText()).toContain('Usage: tool');
    const version = programThatThrows(undefined);
    expect(await version.run.execute(version.program, ['--version'])).toBe(0);
    expect(version.io.stdoutText()).toBe('1.2.3\n');
    expect(version.io.stderrText()).toBe('');
  });

  it('exits 0 for the help command', async () => {
    const { io, run, program } = programThatThrows(undefined);
    expect(await run.execute(program, ['help', 'succeed'])).toBe(0);
    expect(io.stdoutText()).toContain('Usage: tool succeed');
  });

  it('exits 2 with "Error: <message>" for commander usage errors', async () => {
    const { io, run, program } = programThatThrows(undefined);
    expect(await run.execute(program, ['succeed'])).toBe(2);
    expect(io.stderrText()).toBe("Error: missing required argument 'value'\n");
    expect(io.stdoutText()).toBe('');
  });

  it('exits 2 when no command is given', async () => {
    const { io, run, program } = programThatThrows(undefined);
    expect(await run.execute(program, [])).toBe(2);
    expect(io.stderrText()).toContain('Usage: tool');
  });

  it.each([
    ['a CliError', new CliError(CliErrorCode.InvalidConfiguration, 'bad config'), 2],
    [
      'an INVALID_OPTION AcpRemoteError',
      new AcpRemoteError(AcpRemoteErrorCode.InvalidOption, 'bad option'),
      2,
    ],
    [
      'an UNAUTHENTICATED_PUBLIC_BIND AcpRemoteError',
      new AcpRemoteError(AcpRemoteErrorCode.UnauthenticatedPublicBind, 'no token'),
      2,
    ],
    ['a LISTEN_FAILED AcpRemoteError', new AcpRemoteError(AcpRemoteErrorCode.ListenFailed, 'port in use'), 1],
    ['any other error', new Error('boom'), 1],
    ['a thrown string', 'plain failure', 1],
  ])('maps %s to exit %i with its message on stderr', async (_case, error, exitCode) => {
    const { io, run, program } = programThatThrows(error);
    expect(await run.execute(program, ['fail'])).toBe(exitCode);
    const message = error instanceof Error ? error.message : String(error);
    expect(io.stderrText()).toBe(`Error: ${message}\n`);
  });
});

describe('runMain', () => {
  it('gives commands the overridden streams, and derives onStopSignal from a given waitForStopSignal', async () => {
    const io = createTestIo();
    let resolveStop: (signal: 'SIGINT' | 'SIGTERM') => void = () => undefined;
    const waitForStopSignal = () =>
      new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
        resolveStop = resolve;
      });
    const exitCode = runMain(['wait'], { stdout: io.stdout, stderr: io.stderr, waitForStopSignal }, (run) => {
      const program = run.createRootCommand('tool', 'A test tool', '1.2.3');
      program.command('wait').action(
        run.action(
          () =>
            new Promise<number>((resolve) => {
              run.io.onStopSignal((signal) => resolve(signal === 'SIGTERM' ? 143 : 130));
            }),
        ),
      );
      return program;
    });
    await new Promise((resolve) => setImmediate(resolve));
    resolveStop('SIGTERM');
    expect(await exitCode).toBe(143);
  });

  it('ends --help with the exit codes', async () => {
    const io = createTestIo();
    const exitCode = await runMain(['--help'], { stdout: io.stdout, stderr: io.stderr }, (run) =>
      run.createRootCommand('tool', 'A test tool', '1.2.3'),
    );
    expect(exitCode).toBe(0);
    expect(io.stdoutText()).toContain(
      'Exit codes: 0 ok (serve/expose: also a SIGTERM drain that ended in time), 1 runtime failure, 2 usage or configuration error, 130 SIGINT, 143 SIGTERM (serve/expose: the drain timed out, or a second signal).',
    );
  });
});

describe('packageVersion', () => {
  it('reads the version of the package.json one level above the module', () => {
    expect(packageVersion(new URL('../src/index.ts', import.meta.url).href)).toBe('0.0.0');
  });
});
