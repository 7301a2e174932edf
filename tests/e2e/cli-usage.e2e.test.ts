// The built `acpremote` and `acpkit`: --help/--version everywhere, usage and configuration errors exit 2 with
// `Error: <message>` on stderr, and nothing but help text ever reaches stdout. Help and usage errors run the built
// packages' `main` (what each bin runs) in this process, ~30 runs without a CLI start each; --version and the runtime
// failures run the bins in processes of their own (release:check runs every command's --help of the installed bins
// on every Node line).
import { PassThrough } from 'node:stream';
import { main as acpremoteMain } from '@acpkit/acpremote';
import { main as acpkitMain } from '@acpkit/cli';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, repositoryRoot } from './support/paths.js';
import { type CompletedRun, reapAll, runCliToExit } from './support/processes.js';
import { startServe } from './support/remote-servers.js';

afterEach(async () => {
  await reapAll();
});

/** Runs `cli ARGS` as its bin does (`main(argv)` of the built package) with an empty stdin, until it returns. */
async function runMain(cli: 'acpremote' | 'acpkit', args: readonly string[]): Promise<CompletedRun> {
  const stdin = new PassThrough();
  stdin.end();
  const output = { stdout: '', stderr: '' };
  const collect = (name: keyof typeof output) => {
    const stream = new PassThrough();
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      output[name] += chunk;
    });
    return stream;
  };
  const code = await (cli === 'acpremote' ? acpremoteMain : acpkitMain)(args, {
    stdin,
    stdout: collect('stdout'),
    stderr: collect('stderr'),
    cwd: repositoryRoot,
    env: process.env,
    waitForStopSignal: () => new Promise(() => {}),
    onStopSignal: () => () => {},
  });
  return { code, signal: null, ...output };
}

describe('--help and --version', () => {
  it.each([
    ['acpremote', []],
    ['acpremote', ['serve']],
    ['acpremote', ['expose']],
    ['acpremote', ['mirror']],
    ['acpkit', []],
    ['acpkit', ['run']],
    ['acpkit', ['serve']],
  ] as const)('%s %j --help prints usage to stdout and exits 0', async (cli, command) => {
    const run = await runMain(cli, [...command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: ${cli}${command.length ? ` ${command[0]}` : ''} `));
    expect(run.stderr).toBe('');
  });

  it.each(['acpremote', 'acpkit'] as const)(
    '%s help serve prints the serve usage and exits 0',
    async (cli) => {
      const run = await runMain(cli, ['help', 'serve']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: ${cli} serve `));
    },
  );

  it.each(['acpremote', 'acpkit'] as const)('%s --version prints the package version', async (cli) => {
    const run = await runCliToExit(cli, ['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists every shared serve flag in the help of serve and expose', async () => {
    for (const command of ['serve', 'expose']) {
      const { stdout } = await runMain('acpremote', [command, '--help']);
      for (const flag of [
        '--host',
        '--port',
        '--mount-path',
        '--bearer-token',
        '--token-env',
        '--allowed-origin',
        '--allowed-host',
        '--max-message-bytes',
        '--max-connections',
        '--dangerously-allow-unauthenticated',
      ]) {
        expect(stdout).toContain(flag);
      }
    }
  });
});

describe('usage and configuration errors exit 2', () => {
  const probe = fixturePath('remote-probe-agent.js');
  it.each([
    ['no command', 'acpremote', [], /Usage: acpremote/],
    ['an unknown command', 'acpremote', ['bogus'], /^Error: unknown command 'bogus'/m],
    ['an unknown flag', 'acpremote', ['serve', probe, '--bogus'], /^Error: unknown option '--bogus'/m],
    ['a port out of range', 'acpremote', ['serve', probe, '--port', '70000'], /^Error: .*--port/m],
    [
      'both token flags',
      'acpremote',
      ['mirror', 'ws://127.0.0.1:1/acp/ws', '--bearer-token', 'a', '--token-env', 'B'],
      /^Error: option '--bearer-token <token>' cannot be used with option '--token-env <var>'/m,
    ],
    [
      'an unset token variable',
      'acpremote',
      ['serve', probe, '--port', '0', '--token-env', 'ACPKIT_E2E_UNSET'],
      /^Error: Environment variable ACPKIT_E2E_UNSET \(from --token-env\) is not set or is empty\.$/m,
    ],
    [
      'a blank bearer token',
      'acpremote',
      ['expose', '--port', '0', '--bearer-token', '  ', '--', 'node', probe],
      /^Error: --bearer-token must not be blank\.$/m,
    ],
    [
      'expose without a command',
      'acpremote',
      ['expose', '--port', '0'],
      /^Error: missing required argument 'command'/m,
    ],
    [
      'a malformed --env',
      'acpremote',
      ['expose', '--port', '0', '--env', 'NOEQUALS', '--', 'node', probe],
      /^Error: Environment overrides must use KEY=VALUE/m,
    ],
    [
      'a bad --stderr mode',
      'acpremote',
      ['expose', '--stderr', 'file', '--', 'node', probe],
      /^Error: option '--stderr <mode>' argument 'file' is invalid/m,
    ],
    [
      'a non-positive --terminate-timeout',
      'acpremote',
      ['expose', '--terminate-timeout', '0', '--', 'node', probe],
      /^Error: .*--terminate-timeout/m,
    ],
    [
      'a missing TARGET file',
      'acpremote',
      ['serve', './does-not-exist.js', '--port', '0'],
      /^Error: TARGET module ".\/does-not-exist.js" was not found/m,
    ],
    [
      'a TARGET export that is not an agent',
      'acpremote',
      ['serve', `${probe}:probeLabel`, '--port', '0'],
      /^Error: TARGET .* is a string, not an ACP agent app/m,
    ],
    [
      'a TARGET without a default export',
      'acpremote',
      ['serve', probe, '--port', '0'],
      /^Error: TARGET module .* has no default export \(exports: .*createProbeAgent/m,
    ],
    [
      'a bad mount path',
      'acpremote',
      ['serve', `${probe}:createProbeAgent`, '--port', '0', '--mount-path', '/healthz'],
      /^Error: /m,
    ],
    [
      'acpkit run with neither TARGET nor --addr',
      'acpkit',
      ['run'],
      /^Error: Provide exactly one of TARGET or --addr\.$/m,
    ],
    [
      'acpkit run with both TARGET and --addr',
      'acpkit',
      ['run', probe, '--addr', 'ws://127.0.0.1:1/acp/ws'],
      /^Error: Provide exactly one of TARGET or --addr\.$/m,
    ],
    [
      'acpkit run TARGET with --unstable-protocol',
      'acpkit',
      ['run', probe, '--unstable-protocol'],
      /^Error: --unstable-protocol applies only with --addr\.$/m,
    ],
    [
      'acpkit run TARGET with token flags',
      'acpkit',
      ['run', probe, '--bearer-token', 'abc', '--ca', 'ca.pem'],
      /^Error: --bearer-token, --ca apply only with --addr\.$/m,
    ],
    [
      'acpkit run --addr with an unset token variable',
      'acpkit',
      ['run', '--addr', 'ws://127.0.0.1:1/acp/ws', '--token-env', 'ACPKIT_E2E_UNSET'],
      /^Error: Environment variable ACPKIT_E2E_UNSET/m,
    ],
    ['acpkit serve without TARGET', 'acpkit', ['serve'], /^Error: missing required argument 'target'/m],
  ] as const)('for %s', async (_case, cli, args, stderrPattern) => {
    const run = await runMain(cli, args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(stderrPattern);
    expect(run.stdout).toBe('');
  });
});

describe('runtime failures exit 1', () => {
  it('when the port is already in use', async () => {
    const first = await startServe(`${fixturePath('remote-probe-agent.js')}:createProbeAgent`);
    const run = await runCliToExit('acpremote', [
      'serve',
      `${fixturePath('remote-probe-agent.js')}:createProbeAgent`,
      '--port',
      String(first.port),
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*(EADDRINUSE|in use)/im);
    expect(run.stderr).not.toContain('Serving ACP WebSocket');
  });

  it('when the mirror cannot reach the remote endpoint', async () => {
    const run = await runCliToExit('acpremote', ['mirror', 'ws://127.0.0.1:1/acp/ws']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: /m);
    expect(run.stdout).toBe('');
  });
});
