import {
  addConnectFlags,
  addServeCommand,
  CliError,
  CliErrorCode,
  type CliRun,
  CONNECT_FLAG_NAMES,
  type ConnectFlagValues,
  type MainOptions,
  mirror,
  packageVersion,
  runMain,
  runTargetOverStdio,
  TARGET_ARGUMENT_HELP,
} from '@acpkit/cli-support';
import { registerClientCommand } from './client/index.js';
import { registerWebCommand } from './web/web-command.js';

export type { MainOptions };

/** `run`'s flags: `--addr`, and `acpremote mirror`'s connection flags (the same ones) plus `--unstable-protocol`. */
interface RunFlags extends ConnectFlagValues {
  addr?: string;
  unstableProtocol?: boolean;
}

/** The mirror flags given without `--addr`, as the command line spells them. */
function mirrorFlagsGiven(flags: RunFlags): string[] {
  const given = (Object.keys(CONNECT_FLAG_NAMES) as Array<keyof ConnectFlagValues>)
    // `resume` and `carrySessions` are true unless --no-resume / --no-carry-sessions was given.
    .filter((name) =>
      name === 'resume' || name === 'carrySessions' ? flags[name] === false : flags[name] !== undefined,
    )
    .map((name) => CONNECT_FLAG_NAMES[name]);
  return flags.unstableProtocol ? [...given, '--unstable-protocol'] : given;
}

/** The help of a mirror flag as `run` shows it: it applies only with `--addr`. */
function withAddr(help: string): string {
  return `With --addr: ${help.charAt(0).toLowerCase()}${help.slice(1)}`;
}

/**
 * `--addr` names a remote endpoint: `ws(s)://` (WebSocket) or `http(s)://` (ACP's Streamable HTTP). The URL itself
 * is not repeated in the message: it may carry a token in its query.
 */
function requireRemoteUrl(addr: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(addr)?.[1]?.toLowerCase();
  if (scheme === 'ws' || scheme === 'wss' || scheme === 'http' || scheme === 'https') return;
  const problem = scheme === undefined ? 'it has no scheme' : `not an ${scheme}:// one`;
  throw new CliError(
    CliErrorCode.Usage,
    `--addr must be a ws://, wss://, http:// or https:// URL, ${problem} (for example ws://127.0.0.1:8080/acp/ws, or http://127.0.0.1:8080/acp for ACP's Streamable HTTP).`,
  );
}

async function runAction(target: string | undefined, flags: RunFlags, run: CliRun): Promise<number> {
  if ((target === undefined) === (flags.addr === undefined)) {
    throw new CliError(CliErrorCode.Usage, 'Provide exactly one of TARGET or --addr.');
  }
  if (flags.addr !== undefined) {
    requireRemoteUrl(flags.addr);
    return mirror(flags.addr, flags, run.io);
  }
  const mirrorFlags = mirrorFlagsGiven(flags);
  if (mirrorFlags.length > 0) {
    throw new CliError(
      CliErrorCode.Usage,
      `${mirrorFlags.join(', ')} ${mirrorFlags.length === 1 ? 'applies' : 'apply'} only with --addr.`,
    );
  }
  return runTargetOverStdio(target as string, run.io);
}

function buildProgram(run: CliRun) {
  const program = run.createRootCommand(
    'acpkit',
    'Run an ACP agent over stdio or mirror a remote one, serve it over WebSocket, and answer its forms in a terminal client.',
    packageVersion(import.meta.url),
  );

  const runCommand = program
    .command('run')
    .summary('Run an agent over stdio: an in-process TARGET, or a remote endpoint with --addr.')
    .description(
      'Serve TARGET over stdio, or mirror the remote endpoint at --addr (WebSocket or ACP Streamable HTTP) to stdio. Give exactly one. stdout carries only JSON-RPC.',
    )
    .argument('[target]', TARGET_ARGUMENT_HELP)
    .option(
      '--addr <url>',
      "Mirror this remote endpoint instead: ws://127.0.0.1:8080/acp/ws (WebSocket) or http://127.0.0.1:8080/acp (ACP's Streamable HTTP)",
    )
    .option(
      '--unstable-protocol',
      'With --addr: relay methods the SDK defines only in its /unstable entrypoint (session/fork, ...).',
    );
  addConnectFlags(runCommand, withAddr).action(
    run.action((target: string | undefined, flags: RunFlags) => runAction(target, flags, run)),
  );

  addServeCommand(program, run);
  registerClientCommand(program, run);
  registerWebCommand(program, run);
  return program;
}

/**
 * Runs the `acpkit` command line.
 *
 * @param argv - The user arguments, without `node` and the script (`process.argv.slice(2)`).
 * @param options - Streams, environment and stop trigger; each defaults to the real process.
 * @returns The exit code: 0 ok, 1 runtime failure, 2 usage or configuration error, 130 SIGINT, 143 SIGTERM.
 * @example
 * ```ts
 * import { main } from '@acpkit/cli';
 * process.exitCode = await main(['run', '--addr', 'ws://127.0.0.1:8080/acp/ws', '--unstable-protocol']);
 * ```
 */
export function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  return runMain(argv, options, buildProgram);
}
