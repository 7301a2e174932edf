// `acpkit web`: the browser client (@acpkit/web-client) for a stdio agent command or a remote endpoint, on loopback.
import { fileURLToPath } from 'node:url';
import {
  CliError,
  CliErrorCode,
  type CliRun,
  collectRepeatable,
  exitCodeForSignal,
  parsePort,
  resolveBearerToken,
  writeLine,
} from '@acpkit/cli-support';
import { createStderrLogger } from '@acpkit/remote';
import type { WebClientServer } from '@acpkit/web-client';
import { type Command, Option } from 'commander';

interface WebFlags {
  port?: number;
  host?: string;
  cwd?: string;
  addr?: string;
  tokenEnv?: string;
  tokenFile?: string;
  addrTokenEnv?: string;
  addrTokenFile?: string;
  allowedHost?: string[];
}

/** This CLI's own entry point (dist/cli.js), which `--addr` runs as `acpkit run --addr URL` behind the relay. */
const CLI_ENTRY = fileURLToPath(new URL('./cli.js', import.meta.url));

/** The agent command: the one after `--`, or this CLI mirroring `--addr` (its token read by the child, server side). */
function agentCommand(commandArgs: readonly string[], flags: WebFlags): string[] {
  if (commandArgs.length > 0 === (flags.addr !== undefined)) {
    throw new CliError(CliErrorCode.Usage, 'Give exactly one of -- COMMAND... or --addr URL.');
  }
  if (flags.addr === undefined) {
    if (flags.addrTokenEnv !== undefined || flags.addrTokenFile !== undefined) {
      throw new CliError(
        CliErrorCode.Usage,
        '--addr-token-env and --addr-token-file apply only with --addr.',
      );
    }
    return [...commandArgs];
  }
  return [
    process.execPath,
    CLI_ENTRY,
    'run',
    '--addr',
    flags.addr,
    ...(flags.addrTokenEnv !== undefined ? ['--token-env', flags.addrTokenEnv] : []),
    ...(flags.addrTokenFile !== undefined ? ['--token-file', flags.addrTokenFile] : []),
  ];
}

async function webAction(commandArgs: string[], flags: WebFlags, run: CliRun): Promise<number> {
  const io = run.io;
  const command = agentCommand(commandArgs, flags);
  const token = resolveBearerToken({ tokenEnv: flags.tokenEnv, tokenFile: flags.tokenFile }, io.env);
  // Loaded when `acpkit web` runs, so the other commands (`run --addr` above all) load none of it.
  const { serveWebClient, WebClientError, WebClientErrorCode } = await import('@acpkit/web-client');
  const stopSignal = io.waitForStopSignal();
  let web: WebClientServer;
  try {
    web = await serveWebClient({
      command,
      cwd: flags.cwd ?? io.cwd,
      host: flags.host ?? '127.0.0.1',
      port: flags.port ?? 0,
      title: flags.addr ?? commandArgs.join(' '),
      ...(token !== undefined ? { bearerToken: token.token } : {}),
      ...(flags.tokenEnv !== undefined ? { unsetEnv: [flags.tokenEnv] } : {}),
      ...(flags.allowedHost !== undefined ? { allowedHosts: flags.allowedHost } : {}),
      logger: createStderrLogger('acpkit', io.stderr),
    });
  } catch (error) {
    // A configuration the person can fix is exit 2; a port in use or a broken install stays a runtime failure (1).
    if (
      WebClientError.isInstance(error) &&
      (error.code === WebClientErrorCode.UnauthenticatedPublicBind ||
        error.code === WebClientErrorCode.InvalidOption)
    ) {
      throw new CliError(CliErrorCode.InvalidConfiguration, error.message);
    }
    throw error;
  }
  writeLine(io.stderr, `acpkit web: serving ${flags.addr ?? commandArgs.join(' ')} at ${web.origin}/`);
  writeLine(
    io.stderr,
    'Open this URL in a browser (its token signs in one browser, once; nothing is opened for you):',
  );
  writeLine(io.stderr, `  ${web.url}`);
  if (token !== undefined) {
    const source = token.variable !== undefined ? `$${token.variable}` : (token.file ?? '--token-file');
    writeLine(
      io.stderr,
      `Other devices: http://HOST:${web.port}/?token=<the token in ${source}> (signs a browser in).`,
    );
  }
  const signal = await stopSignal;
  writeLine(io.stderr, `Received ${signal}; stopping the web client and the agent.`);
  await web.close();
  return exitCodeForSignal(signal);
}

/**
 * Registers `acpkit web [options] (-- COMMAND... | --addr URL)`: serves the browser client on loopback for a stdio
 * agent command (through the same relay as `acpremote expose`) or a remote endpoint (through `acpkit run --addr`, its
 * token kept on this side), and prints the URL with a one-time token.
 *
 * @example
 * ```ts
 * registerWebCommand(program, run);
 * await run.execute(program, ['web', '--', 'node', 'agent.js']);
 * ```
 */
export function registerWebCommand(program: Command, run: CliRun): void {
  program
    .command('web')
    .summary('Talk to an ACP agent from a browser: forms, approvals, tool calls, diffs and plans.')
    .description(
      'Serve a browser client for a stdio agent COMMAND (after --) or a remote endpoint (--addr) on a loopback ' +
        'HTTP server, and print its URL with a one-time token. Without the token no page or API answers; the ' +
        "agent's relay and any remote token stay on this side.",
    )
    .usage('[options] (-- COMMAND... | --addr URL)')
    .argument('[command...]', 'The agent command and its arguments (put them after --).')
    .passThroughOptions()
    .addOption(
      new Option('--port <port>', 'Port to listen on (default: one the OS picks).').argParser(parsePort),
    )
    .option(
      '--host <host>',
      'Address to listen on (default 127.0.0.1). Any other needs --token-env or --token-file: other devices then sign in with that token.',
    )
    .option(
      '--cwd <dir>',
      'Working directory of the agent and of the sessions (default: the current directory).',
    )
    .option(
      '--addr <url>',
      'Talk to this remote endpoint instead of a command (ws://…/acp/ws or http://…/acp).',
    )
    .option(
      '--addr-token-env <var>',
      "With --addr: the remote server's bearer token, from this environment variable.",
    )
    .option('--addr-token-file <file>', "With --addr: the remote server's bearer token, from this file.")
    .addOption(
      new Option(
        '--token-env <var>',
        'A bearer token for other devices (with --host), from this environment variable.',
      ).conflicts('tokenFile'),
    )
    .option('--token-file <file>', 'A bearer token for other devices (with --host), from this file.')
    .option(
      '--allowed-host <name>',
      'Also accept this Host name on loopback (a reverse proxy in front; repeatable).',
      collectRepeatable,
    )
    .action(run.action((commandArgs: string[], flags: WebFlags) => webAction(commandArgs, flags, run)));
}
