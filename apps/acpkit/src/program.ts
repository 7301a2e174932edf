import {
  addServeCommand,
  CliError,
  CliErrorCode,
  type CliRun,
  type MainOptions,
  mirror,
  packageVersion,
  parsePositiveInteger,
  RESUME_FLAG_HELP,
  runMain,
  runTargetOverStdio,
  stallTimeoutSeconds,
  TARGET_ARGUMENT_HELP,
  TRANSPORT_FLAG_HELP,
  type TransportFlag,
} from '@acpkit/cli-support';
import { Option } from 'commander';
import { registerClientCommand } from './client/index.js';
import { registerWebCommand } from './web/web-command.js';

export type { MainOptions };

interface RunFlags {
  addr?: string;
  tokenEnv?: string;
  tokenFile?: string;
  ca?: string;
  unstableProtocol?: boolean;
  /** False with `--no-resume`. */
  resume: boolean;
  resumeBufferBytes?: number;
  transport?: TransportFlag;
  /** `--stall-timeout` in milliseconds. */
  stallTimeout?: number;
  maxPendingRequests?: number;
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
    return mirror(
      flags.addr,
      {
        ...(flags.tokenEnv !== undefined ? { tokenEnv: flags.tokenEnv } : {}),
        ...(flags.tokenFile !== undefined ? { tokenFile: flags.tokenFile } : {}),
        ...(flags.ca !== undefined ? { ca: flags.ca } : {}),
        ...(flags.unstableProtocol ? { unstableProtocol: true } : {}),
        ...(flags.resume === false ? { resume: false } : {}),
        ...(flags.resumeBufferBytes !== undefined ? { resumeBufferBytes: flags.resumeBufferBytes } : {}),
        ...(flags.transport !== undefined ? { transport: flags.transport } : {}),
        ...(flags.stallTimeout !== undefined ? { stallTimeout: flags.stallTimeout } : {}),
        ...(flags.maxPendingRequests !== undefined ? { maxPendingRequests: flags.maxPendingRequests } : {}),
      },
      run.io,
    );
  }
  if (
    flags.tokenEnv !== undefined ||
    flags.tokenFile !== undefined ||
    flags.ca !== undefined ||
    flags.unstableProtocol ||
    flags.resume === false ||
    flags.resumeBufferBytes !== undefined ||
    flags.transport !== undefined ||
    flags.stallTimeout !== undefined ||
    flags.maxPendingRequests !== undefined
  ) {
    throw new CliError(
      CliErrorCode.Usage,
      '--token-env, --token-file, --ca, --unstable-protocol, --no-resume, --resume-buffer-bytes, --transport, --stall-timeout and --max-pending-requests apply only with --addr.',
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

  program
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
    .option('--token-env <var>', 'With --addr: read the bearer token from this environment variable.')
    .option(
      '--token-file <file>',
      'With --addr: read the bearer token from this file (or pipe) at start; it never enters the environment.',
    )
    .option(
      '--ca <file>',
      'With --addr: trust the CA certificate(s) in this PEM file for wss:// and https:// (a private CA).',
    )
    .option(
      '--unstable-protocol',
      'With --addr: relay methods the SDK defines only in its /unstable entrypoint (session/fork, ...).',
    )
    .option('--no-resume', withAddr(RESUME_FLAG_HELP.noResume))
    .addOption(
      new Option('--transport <kind>', withAddr(TRANSPORT_FLAG_HELP)).choices(['auto', 'http', 'websocket']),
    )
    .addOption(
      new Option('--resume-buffer-bytes <bytes>', withAddr(RESUME_FLAG_HELP.bufferBytes)).argParser(
        parsePositiveInteger,
      ),
    )
    .addOption(
      new Option('--stall-timeout <seconds>', withAddr(RESUME_FLAG_HELP.stallTimeout)).argParser(
        stallTimeoutSeconds,
      ),
    )
    .addOption(
      new Option('--max-pending-requests <count>', withAddr(RESUME_FLAG_HELP.maxPendingRequests)).argParser(
        parsePositiveInteger,
      ),
    )
    .action(run.action((target: string | undefined, flags: RunFlags) => runAction(target, flags, run)));

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
