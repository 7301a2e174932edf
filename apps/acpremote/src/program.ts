import {
  addConnectFlags,
  addServeCommand,
  addServeFlags,
  type CliRun,
  collectRepeatable,
  type ExposeFlagValues,
  exposeCommand,
  type MainOptions,
  type MirrorFlagValues,
  mirror,
  packageVersion,
  parseEnvironmentAssignments,
  parseSecondsToMilliseconds,
  runMain,
} from '@acpkit/cli-support';
import { Option } from 'commander';

export type { MainOptions };

interface ExposeRawFlags extends Omit<ExposeFlagValues, 'env'> {
  env?: string[];
}

function buildProgram(run: CliRun) {
  const program = run.createRootCommand(
    'acpremote',
    'Serve an ACP agent over WebSocket (in-process module or any stdio command) and mirror a remote one back to stdio.',
    packageVersion(import.meta.url),
  );

  addServeCommand(program, run);

  addServeFlags(
    program
      .command('expose')
      .summary('Serve a stdio ACP command over WebSocket, one child process per connection.')
      .description(
        'Spawn COMMAND (argv, no shell, own process group) for every WebSocket connection and relay JSON-RPC frames unchanged.',
      )
      .usage('[options] -- COMMAND...')
      .argument('<command...>', 'the agent command and its arguments (put them after --)')
      .passThroughOptions()
      .option('--cwd <dir>', 'Working directory of the command (and the remote_cwd the metadata reports).')
      .addOption(
        new Option(
          '--env <KEY=VALUE>',
          'Add or override an environment variable of the command (repeatable; KEY= allowed).',
        ).argParser(collectRepeatable),
      )
      .addOption(
        new Option('--stderr <mode>', "What to do with the command's stderr.")
          .choices(['inherit', 'discard'])
          .default('inherit'),
      )
      .addOption(
        new Option(
          '--terminate-timeout <seconds>',
          'Grace period after closing stdin and again after SIGTERM before the group is killed (default 5).',
        ).argParser(parseSecondsToMilliseconds),
      ),
  ).action(
    run.action((command: string[], flags: ExposeRawFlags) => {
      const { env, ...rest } = flags;
      return exposeCommand(
        command,
        { ...rest, ...(env ? { env: parseEnvironmentAssignments(env) } : {}) },
        run.io,
      );
    }),
  );

  addConnectFlags(
    program
      .command('mirror')
      .summary('Serve a remote ACP endpoint (WebSocket or Streamable HTTP) as a local stdio agent.')
      .description(
        "Relay JSON-RPC frames between stdio and URL: ws(s):// speaks WebSocket, http(s):// ACP's Streamable HTTP. stdout carries only JSON-RPC; stdin EOF exits 0, losing the remote exits 1.",
      )
      .argument(
        '<url>',
        "URL of the remote endpoint, e.g. ws://127.0.0.1:8080/acp/ws (WebSocket) or http://127.0.0.1:8080/acp (ACP's Streamable HTTP)",
      )
      .option(
        '--unstable-protocol',
        'Relay methods the SDK defines only in its /unstable entrypoint (session/fork, ...).',
      )
      .addOption(
        new Option('--host-ownership <mode>', 'Which host serves fs/terminal capabilities.')
          .choices(['remote', 'client-passthrough'])
          .default('remote'),
      )
      .option('--latency-meta', 'Add transport timings to relayed session/update _meta.'),
  ).action(run.action((url: string, flags: MirrorFlagValues) => mirror(url, flags, run.io)));

  return program;
}

/**
 * Runs the `acpremote` command line.
 *
 * @param argv - The user arguments, without `node` and the script (`process.argv.slice(2)`).
 * @param options - Streams, environment and stop trigger; each defaults to the real process.
 * @returns The exit code: 0 ok, 1 runtime failure, 2 usage or configuration error, 130 SIGINT, 143 SIGTERM.
 * @example
 * ```ts
 * import { main } from '@acpkit/acpremote';
 * process.exitCode = await main(['mirror', 'ws://127.0.0.1:8080/acp/ws', '--token-env', 'ACPREMOTE_TOKEN']);
 * ```
 */
export function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  return runMain(argv, options, buildProgram);
}
