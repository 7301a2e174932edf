import { Readable, Writable } from 'node:stream';
import type { HostOwnership, RemoteLogger, RemoteServer } from '@acpkit/remote';
import { createStderrLogger, runMirror, serveAcp, serveCommand } from '@acpkit/remote';
import type { AgentApp } from '@agentclientprotocol/sdk';
import type { Command } from 'commander';
import { formatServeBanner } from './banner.js';
import { type CliIo, writeLine } from './cli-io.js';
import { routeConsoleToLogger } from './console-capture.js';
import { CliError, CliErrorCode } from './errors.js';
import { ExitCode, exitCodeForSignal, type StopSignal } from './exit-codes.js';
import { explainMirrorError, explainServeError } from './remote-error-messages.js';
import type { CliRun } from './run-program.js';
import {
  addServeFlags,
  type ConnectFlagValues,
  resolveConnectFlags,
  resolveServeFlags,
  type ServeFlagValues,
} from './serve-flags.js';
import { agentSource, instantiateAgent, loadTarget } from './target.js';
import type { ResolvedToken } from './token.js';

/** Flags of `acpremote expose` besides the shared serve flags. */
export interface ExposeFlagValues extends ServeFlagValues {
  cwd?: string;
  /** Already parsed `--env KEY=VALUE` overrides. */
  env?: Record<string, string>;
  stderr?: 'inherit' | 'discard';
  /** `--terminate-timeout` converted to milliseconds. */
  terminateTimeout?: number;
}

/** Flags of `acpremote mirror` and `acpkit run --addr`. */
export interface MirrorFlagValues extends ConnectFlagValues {
  unstableProtocol?: boolean;
  hostOwnership?: HostOwnership;
  latencyMeta?: boolean;
}

/** The CLI a command runs in, which its log lines and banners name. */
function programOf(io: CliIo): string {
  return io.programName ?? 'acpremote';
}

/**
 * The logger handed to `@acpkit/remote`: one line per event on `io.stderr` (so in-process runs capture every
 * diagnostic), each starting with the CLI's own name (`acpkit info: …` under `acpkit`).
 */
function loggerFor(io: CliIo): RemoteLogger {
  return createStderrLogger(programOf(io), io.stderr);
}

function withLogger<Options extends object>(options: Options, io: CliIo): Options & { logger: RemoteLogger } {
  return { ...options, logger: loggerFor(io) };
}

/**
 * Serves until a stop signal. SIGTERM (Kubernetes, systemd, `docker stop`) drains: new connections get 503, open
 * ones may finish within the grace period; exit 0 when they all ended in time, 143 when the grace ran out. SIGINT
 * (Ctrl+C at a terminal: someone wants it stopped now) closes every connection at once: 130. A second signal exits
 * at once (`processIo`).
 */
async function serveUntilStopped(
  start: () => Promise<RemoteServer>,
  token: ResolvedToken | undefined,
  drainGraceMs: number,
  io: CliIo,
): Promise<number> {
  // Listen for signals before binding so a SIGTERM during start-up still ends in a graceful shutdown.
  const stopSignal = io.waitForStopSignal();
  const server = await start();
  for (const line of formatServeBanner(server.url, token, programOf(io), server.endpoint))
    writeLine(io.stderr, line);
  const signal = await stopSignal;
  if (signal === 'SIGINT') {
    writeLine(io.stderr, 'Received SIGINT; closing connections and stopping child processes.');
    await server.close();
    return exitCodeForSignal(signal);
  }
  writeLine(
    io.stderr,
    `Received SIGTERM; draining: refusing new connections, waiting up to ${drainGraceMs / 1000} s for ${server.connectionCount} open one(s) to end.`,
  );
  const { endedWithinGrace, closedConnections } = await server.drain({ graceMs: drainGraceMs });
  await server.close();
  if (endedWithinGrace) {
    writeLine(io.stderr, 'Drained: every connection ended; stopped.');
    return ExitCode.Ok;
  }
  writeLine(
    io.stderr,
    `Drain timeout reached; closed ${closedConnections} connection(s) with 1001 and stopped their child processes.`,
  );
  return exitCodeForSignal(signal);
}

/**
 * `serve TARGET`: serves an in-process agent app (or factory) over WebSocket until SIGINT/SIGTERM.
 *
 * @returns 0 after a SIGTERM drain that ended within `--drain-timeout`, 143 when it ran out, 130 on SIGINT.
 * @throws {@link CliError} for a bad TARGET or token; `AcpRemoteError` when the server refuses the options.
 * @example
 * ```ts
 * const exitCode = await serveTarget('./agent.ts', { host: '127.0.0.1', port: 0, mountPath: '/acp' }, io);
 * ```
 */
export async function serveTarget(
  targetSpecifier: string,
  flags: ServeFlagValues,
  io: CliIo,
): Promise<number> {
  const { serveOptions, token, drainGraceMs } = resolveServeFlags(flags, io.env);
  const target = await loadTarget(targetSpecifier, { cwd: io.cwd });
  // The agent and the SDK print diagnostics with console.*: keep each one a single, escaped stderr line.
  const restoreConsole = io.stderr === process.stderr ? routeConsoleToLogger(loggerFor(io)) : () => {};
  try {
    return await serveUntilStopped(
      () =>
        serveAcp(agentSource(target), withLogger(serveOptions, io)).catch((error: unknown) => {
          throw explainServeError(error, { host: flags.host, port: flags.port, token });
        }),
      token,
      drainGraceMs,
      io,
    );
  } finally {
    restoreConsole();
  }
}

/**
 * `expose -- COMMAND...`: serves a stdio ACP command over WebSocket, one child process per connection, until
 * SIGINT/SIGTERM; the shutdown reaps every child.
 *
 * @returns 0 after a SIGTERM drain that ended within `--drain-timeout`, 143 when it ran out, 130 on SIGINT.
 * @throws {@link CliError} when the command is empty or the token is unusable.
 * @example
 * ```ts
 * await exposeCommand(['node', 'agent.js'], { host: '127.0.0.1', port: 0, mountPath: '/acp' }, io);
 * ```
 */
export async function exposeCommand(
  command: readonly string[],
  flags: ExposeFlagValues,
  io: CliIo,
): Promise<number> {
  if (command.length === 0 || command[0]?.trim() === '') {
    throw new CliError(CliErrorCode.Usage, 'Command must not be empty (expose [options] -- COMMAND...).');
  }
  const { serveOptions, token, drainGraceMs } = resolveServeFlags(flags, io.env);
  return serveUntilStopped(
    () =>
      serveCommand(command, {
        ...withLogger(serveOptions, io),
        ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}),
        ...(flags.env !== undefined ? { env: flags.env } : {}),
        ...(flags.stderr !== undefined ? { stderr: flags.stderr } : {}),
        ...(flags.terminateTimeout !== undefined ? { terminateTimeoutMs: flags.terminateTimeout } : {}),
        // Hygiene only: the agent's own environment lacks the --token-env variable, but a child running as the
        // same user can still read the server's /proc/<pid>/environ. --token-file keeps the token out of it.
        ...(token?.variable !== undefined ? { unsetEnv: [token.variable] } : {}),
      }).catch((error: unknown) => {
        throw explainServeError(error, { host: flags.host, port: flags.port, token });
      }),
    token,
    drainGraceMs,
    io,
  );
}

/**
 * `mirror WS_URL` / `acpkit run --addr WS_URL`: a local stdio ACP server relaying to the remote endpoint. stdout
 * carries only JSON-RPC.
 *
 * @returns 0 on stdin EOF, 1 when the upstream is lost, 130/143 on SIGINT/SIGTERM.
 * @throws {@link CliError} when the token is unusable.
 * @example
 * ```ts
 * const exitCode = await mirror('ws://127.0.0.1:8080/acp/ws', { unstableProtocol: true }, io);
 * ```
 */
export async function mirror(url: string, flags: MirrorFlagValues, io: CliIo): Promise<number> {
  const { connectOptions, token } = resolveConnectFlags(flags, io.env);
  // A signal ends the mirror the way input EOF does, so the shutdown takes the same graceful path.
  const stop = new AbortController();
  let stoppedBy: StopSignal | undefined;
  void io.waitForStopSignal().then((signal) => {
    stoppedBy = signal;
    stop.abort();
  });
  const exitCode = await runMirror(url, {
    ...withLogger({}, io),
    input: io.stdin,
    output: io.stdout,
    signal: stop.signal,
    ...connectOptions,
    ...(flags.unstableProtocol ? { useUnstableProtocol: true } : {}),
    ...(flags.hostOwnership ? { hostOwnership: flags.hostOwnership } : {}),
    ...(flags.latencyMeta ? { emitLatencyMeta: true } : {}),
  }).catch((error: unknown) => {
    throw explainMirrorError(error, token, url);
  });
  return stoppedBy ? exitCodeForSignal(stoppedBy) : exitCode;
}

/**
 * `acpkit run TARGET`: serves an in-process agent app over this process's stdio until stdin ends (exit 0) or a
 * signal arrives (130/143). While it runs, `console.log`/`info`/`debug` write to stderr so a chatty agent cannot
 * corrupt the JSON-RPC stream on stdout.
 *
 * @throws {@link CliError} for a bad TARGET.
 * @example
 * ```ts
 * process.exit(await runTargetOverStdio('./agent.ts:createAgent', processIo()));
 * ```
 */
export async function runTargetOverStdio(targetSpecifier: string, io: CliIo): Promise<number> {
  const restoreConsole = io.stdout === process.stdout ? routeConsoleToStderr() : () => {};
  try {
    const target = await loadTarget(targetSpecifier, { cwd: io.cwd });
    return await serveAgentOverStdio(await instantiateAgent(target), io);
  } finally {
    restoreConsole();
  }
}

/**
 * Connects one agent app to `io.stdin`/`io.stdout` as NDJSON JSON-RPC and waits for EOF or a stop signal.
 *
 * @returns 0 when the input ended, 130/143 when stopped by a signal.
 * @example
 * ```ts
 * await serveAgentOverStdio(agent({ name: 'demo' }).onRequest(...), io);
 * ```
 */
export async function serveAgentOverStdio(app: AgentApp, io: CliIo): Promise<number> {
  const stopSignal = io.waitForStopSignal();
  const { ndJsonStream } = await import('@agentclientprotocol/sdk'); // loaded here only: expose and mirror never need it
  const stream = ndJsonStream(
    Writable.toWeb(io.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const outcome = await Promise.race([connection.closed.then(() => undefined), stopSignal]);
  if (outcome === undefined) return ExitCode.Ok;
  connection.close();
  return exitCodeForSignal(outcome);
}

function routeConsoleToStderr(): () => void {
  const original = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => {
    Object.assign(console, original);
  };
}

/** How a TARGET operand is written, for `serve` and `run` help. */
export const TARGET_ARGUMENT_HELP =
  'path/to/module[.js|.ts][:exportName] (default export when no name; .ts needs no build)';

/** What `serve --help` says a TARGET module must export (docs/cli.md says the same). */
const targetExportHelp = (cli: string) => `
TARGET must export (as its default export, or under :exportName) one of:
  - an SDK agent app: agent({ name }) from @agentclientprotocol/sdk (or its /unstable entrypoint) with its handlers
    registered; one app then serves every connection;
  - a function, sync or async, returning such an app: it is called once per connection (and once at start-up, so a
    broken TARGET fails before the port is bound).
The module must not connect to stdio itself when imported (guard that with a main-module check).
Example: ${cli} serve ./src/agent.ts:createAgent --port 0`;

/**
 * Registers the `serve TARGET` command both CLIs share (`acpremote serve`, `acpkit serve`): the serve flags, and a
 * help text saying what the TARGET module must export.
 *
 * @example
 * ```ts
 * const run = new CliRun(processIo());
 * addServeCommand(run.createRootCommand('acpkit', 'ACP tools', '0.1.0'), run);
 * ```
 */
export function addServeCommand(program: Command, run: CliRun): Command {
  return addServeFlags(
    program
      .command('serve')
      .summary('Serve an in-process SDK agent app over WebSocket.')
      .description(
        'Serve the agent app exported by TARGET over WebSocket; a factory export is called once per connection.',
      )
      .argument('<target>', TARGET_ARGUMENT_HELP)
      .addHelpText('after', targetExportHelp(program.name())),
  ).action(run.action((target: string, flags: ServeFlagValues) => serveTarget(target, flags, run.io)));
}
