import { readFileSync } from 'node:fs';
import {
  type ConnectOptions,
  RemoteDefaults,
  type ResumeWireChoice,
  type ServeOptions,
} from '@acpkit/remote';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError, CliErrorCode } from './errors.js';
import {
  collectRepeatable,
  parseNonNegativeInteger,
  parseNonNegativeSecondsToMilliseconds,
  parsePort,
  parsePositiveInteger,
} from './flag-parsers.js';
import { type ResolvedToken, resolveBearerToken, STDIN_TOKEN_FILES } from './token.js';

/** Defaults shown in `--help` and used when a flag is absent. */
export const SERVE_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  mountPath: '/acp',
  /** `--drain-timeout` in milliseconds, as the parsed flag holds it. */
  drainTimeout: RemoteDefaults.drainGraceMs,
} as const;

/** The token flags after commander parsed them. */
export interface TokenFlagValues {
  bearerToken?: string;
  tokenEnv?: string;
  tokenFile?: string;
}

/** The flags of a client connection (`acpremote mirror`, `acpkit run --addr`) after commander parsed them. */
export interface ConnectFlagValues extends TokenFlagValues {
  /** `--ca FILE`: extra trusted CA certificates (PEM) for `wss://`. */
  ca?: string;
  /** False with `--no-resume`. */
  resume?: boolean;
  /** `--resume-buffer-bytes`. */
  resumeBufferBytes?: number;
  /** False with `--no-carry-sessions`. */
  carrySessions?: boolean;
  /** `--reconnect-timeout` converted to milliseconds. */
  reconnectTimeout?: number;
  /** `--transport auto|http|websocket`. */
  transport?: TransportFlag;
  /** `--resume-wire auto|acpkit|durable-resume`. */
  resumeWire?: ResumeWireChoice;
  /** `--stall-timeout` converted to milliseconds (0: off). */
  stallTimeout?: number;
  /** `--max-pending-requests`. */
  maxPendingRequests?: number;
}

/** The values of `--transport`: `http` is ACP's Streamable HTTP. */
export type TransportFlag = 'auto' | 'http' | 'websocket';

/** The help of `--transport`, shared by `acpremote mirror` and `acpkit run --addr`. */
export const TRANSPORT_FLAG_HELP =
  "Transport to the remote: http (ACP's Streamable HTTP), websocket, or auto (by the URL's scheme: http(s):// or ws(s)://). A forced one converts the scheme and keeps the path.";

/** The flags `serve` and `expose` share, after commander parsed them. */
export interface ServeFlagValues extends TokenFlagValues {
  host: string;
  port: number;
  mountPath: string;
  allowedOrigin?: string[];
  allowedHost?: string[];
  maxMessageBytes?: number;
  maxConnections?: number;
  maxHttpConnections?: number;
  maxEventStreams?: number;
  /** `--instance-id`: the prefix of this instance's connection ids. */
  instanceId?: string;
  /** `--resume-window` converted to milliseconds (0: resume off). */
  resumeWindow?: number;
  resumeBufferBytes?: number;
  maxDetachedSessions?: number;
  maxPendingRequests?: number;
  /** `--stall-timeout` converted to milliseconds (0: off). */
  stallTimeout?: number;
  dangerouslyAllowUnauthenticated?: boolean;
  /** `--drain-timeout` converted to milliseconds (default 30 s). */
  drainTimeout?: number;
  /** `--metrics`: serve Prometheus metrics at `/metrics`. */
  metrics?: boolean;
}

/** How a command words the help of a shared flag: as it is, or with a prefix (`acpkit run`'s "With --addr: …"). */
export type FlagHelp = (help: string) => string;

const asIs: FlagHelp = (help) => help;

/**
 * Adds the mutually exclusive `--bearer-token TOKEN | --token-env VAR | --token-file FILE` flags, the same ones on
 * every command that takes a token (`serve`, `expose`, `acpremote mirror`, `acpkit run --addr`).
 *
 * @example
 * ```ts
 * addTokenFlags(program.command('mirror <url>'));
 * ```
 */
export function addTokenFlags(command: Command, describe: FlagHelp = asIs): Command {
  return command
    .addOption(
      new Option(
        '--bearer-token <token>',
        describe(
          'Bearer token (visible to other local users in the process list; prefer --token-file or --token-env).',
        ),
      ).conflicts(['tokenEnv', 'tokenFile']),
    )
    .addOption(
      new Option(
        '--token-env <var>',
        describe('Read the bearer token from this environment variable.'),
      ).conflicts('tokenFile'),
    )
    .addOption(
      new Option(
        '--token-file <file>',
        describe(
          'Read the bearer token from this file at start (- for stdin, serve commands only); it never enters the environment.',
        ),
      ),
    );
}

/**
 * Help of the client's resume and limit flags (`acpremote mirror`, and `acpkit run` with its "With --addr:"
 * prefix).
 */
export const RESUME_FLAG_HELP = {
  noResume:
    "Don't offer resume: a dropped connection ends the mirror (exit 1) instead of being reconnected and resumed.",
  bufferBytes:
    'Most bytes of sent messages kept until the server acknowledges them, plus one message (default 16 MiB).',
  stallTimeout:
    'Close the connection when the server reads or acknowledges nothing for this long while data waits (default 60; 0 disables).',
  maxPendingRequests:
    'Editor requests waiting for the remote at once (default 256); one more is answered with an error.',
  noCarrySessions:
    "Don't carry the editor's sessions across a lost server: a connection that cannot be resumed ends the mirror (exit 1) instead of being replaced by a new one on which every open session is resumed or loaded.",
  reconnectTimeout:
    'How long to keep trying to reach a lost server again to carry the sessions (default 60).',
  resumeWire:
    "Which resume a WebSocket dials: acpkit (acpkit.resume.v1), durable-resume (ACP's draft: stream/resume on the RFD WebSocket, <mount>; acpkit.resume.v1 not offered), or auto (acpkit.resume.v1 when the server selects it, else the draft when the server advertises retention). Streamable HTTP always resumes with the draft's Last-Event-ID.",
} as const;

/** A `<seconds>` flag for a stall timeout (0 disables it). */
export function stallTimeoutSeconds(value: string): number {
  return timerSeconds('disables the stall timeout')(value);
}

/**
 * Adds the flags of a client connection: the token flags, `--ca FILE`, `--no-resume`, `--resume-buffer-bytes`,
 * `--transport`, `--resume-wire`, `--stall-timeout` and `--max-pending-requests`, the same on `acpremote mirror` and
 * `acpkit run --addr` (whose help says "With --addr:").
 *
 * @example
 * ```ts
 * addConnectFlags(program.command('mirror <url>'));
 * ```
 */
export function addConnectFlags(command: Command, describe: FlagHelp = asIs): Command {
  return addTokenFlags(command, describe)
    .addOption(
      new Option(
        '--ca <file>',
        describe(
          'Trust the CA certificate(s) in this PEM file for wss:// and https:// (a private CA); NODE_EXTRA_CA_CERTS works too.',
        ),
      ),
    )
    .addOption(new Option('--no-resume', describe(RESUME_FLAG_HELP.noResume)))
    .addOption(
      new Option('--resume-buffer-bytes <bytes>', describe(RESUME_FLAG_HELP.bufferBytes)).argParser(
        parsePositiveInteger,
      ),
    )
    .addOption(new Option('--no-carry-sessions', describe(RESUME_FLAG_HELP.noCarrySessions)))
    .addOption(
      new Option('--reconnect-timeout <seconds>', describe(RESUME_FLAG_HELP.reconnectTimeout)).argParser(
        timerSeconds('gives up at once'),
      ),
    )
    .addOption(
      new Option('--transport <kind>', describe(TRANSPORT_FLAG_HELP)).choices(['auto', 'http', 'websocket']),
    )
    .addOption(
      new Option('--resume-wire <wire>', describe(RESUME_FLAG_HELP.resumeWire)).choices([
        'auto',
        'acpkit',
        'durable-resume',
      ]),
    )
    .addOption(
      new Option('--stall-timeout <seconds>', describe(RESUME_FLAG_HELP.stallTimeout)).argParser(
        stallTimeoutSeconds,
      ),
    )
    .addOption(
      new Option('--max-pending-requests <count>', describe(RESUME_FLAG_HELP.maxPendingRequests)).argParser(
        parsePositiveInteger,
      ),
    );
}

/** The connection flags as the command line spells them, by their parsed name (what `acpkit run` needs --addr for). */
export const CONNECT_FLAG_NAMES: Readonly<Record<keyof ConnectFlagValues, string>> = {
  bearerToken: '--bearer-token',
  tokenEnv: '--token-env',
  tokenFile: '--token-file',
  ca: '--ca',
  resume: '--no-resume',
  resumeBufferBytes: '--resume-buffer-bytes',
  carrySessions: '--no-carry-sessions',
  reconnectTimeout: '--reconnect-timeout',
  transport: '--transport',
  resumeWire: '--resume-wire',
  stallTimeout: '--stall-timeout',
  maxPendingRequests: '--max-pending-requests',
};

/** `--transport` as the `transport` option of `@acpkit/remote`. */
export function transportOption(flag: TransportFlag | undefined): ConnectOptions['transport'] {
  if (flag === undefined || flag === 'auto') return undefined;
  return flag === 'http' ? 'streamable-http' : 'websocket';
}

/** What {@link resolveConnectFlags} produces. */
export interface ResolvedConnectFlags {
  readonly connectOptions: Pick<
    ConnectOptions,
    | 'bearerToken'
    | 'ca'
    | 'resume'
    | 'resumeBufferBytes'
    | 'carrySessions'
    | 'reconnectTimeoutMs'
    | 'transport'
    | 'resumeWire'
    | 'stallTimeoutMs'
    | 'maxPendingRequests'
  >;
  readonly token: ResolvedToken | undefined;
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/**
 * Turns parsed connection flags into `@acpkit/remote` connection options: the token, and the PEM text of `--ca`.
 *
 * @throws {@link CliError} as `resolveBearerToken` does, or `INVALID_CONFIGURATION` when `--ca` cannot be read or
 *   holds no PEM certificate.
 * @example
 * ```ts
 * const { connectOptions, token } = resolveConnectFlags({ tokenEnv: 'ACPREMOTE_TOKEN', ca: 'ca.pem' }, process.env);
 * ```
 */
export function resolveConnectFlags(
  flags: ConnectFlagValues,
  environment: NodeJS.ProcessEnv,
): ResolvedConnectFlags {
  if (flags.tokenFile !== undefined && STDIN_TOKEN_FILES.has(flags.tokenFile)) {
    throw new CliError(
      CliErrorCode.Usage,
      `--token-file ${flags.tokenFile} cannot be used here: stdin carries JSON-RPC. Use a file or <(...).`,
    );
  }
  const token = resolveBearerToken(flags, environment);
  let ca: string | undefined;
  if (flags.ca !== undefined) {
    try {
      ca = readFileSync(flags.ca, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new CliError(CliErrorCode.InvalidConfiguration, `Cannot read --ca ${flags.ca}: ${code}.`, {
        cause: error,
      });
    }
    if (!ca.includes(PEM_CERTIFICATE)) {
      throw new CliError(
        CliErrorCode.InvalidConfiguration,
        `--ca ${flags.ca} holds no PEM certificate (a "${PEM_CERTIFICATE}" block).`,
      );
    }
  }
  return {
    connectOptions: {
      ...(token ? { bearerToken: token.token } : {}),
      ...(ca ? { ca } : {}),
      ...(flags.resume === false ? { resume: false } : {}),
      ...(flags.resumeBufferBytes !== undefined ? { resumeBufferBytes: flags.resumeBufferBytes } : {}),
      ...(flags.carrySessions === false ? { carrySessions: false } : {}),
      ...(flags.reconnectTimeout !== undefined ? { reconnectTimeoutMs: flags.reconnectTimeout } : {}),
      ...(transportOption(flags.transport) !== undefined
        ? { transport: transportOption(flags.transport) }
        : {}),
      ...(flags.resumeWire !== undefined && flags.resumeWire !== 'auto'
        ? { resumeWire: flags.resumeWire }
        : {}),
      ...(flags.stallTimeout !== undefined ? { stallTimeoutMs: flags.stallTimeout } : {}),
      ...(flags.maxPendingRequests !== undefined ? { maxPendingRequests: flags.maxPendingRequests } : {}),
    },
    token,
  };
}

/**
 * Adds the flags `serve` and `expose` share: `--host`, `--port`, `--mount-path`, the token flags,
 * `--allowed-origin`, `--allowed-host`, `--max-message-bytes`, `--max-connections`, `--max-http-connections`,
 * `--drain-timeout`, `--metrics`, `--resume-window`, `--resume-buffer-bytes`, `--max-detached-sessions`,
 * `--max-pending-requests`, `--stall-timeout` and `--dangerously-allow-unauthenticated`.
 *
 * @example
 * ```ts
 * addServeFlags(program.command('serve <target>')).action(...);
 * ```
 */
export function addServeFlags(command: Command): Command {
  command
    .addOption(
      new Option('--host <host>', 'Interface to bind (an IPv6 address may be bracketed: [::1]).').default(
        SERVE_DEFAULTS.host,
      ),
    )
    .addOption(
      new Option('--port <port>', 'TCP port; 0 picks any free port (the banner shows the real one).')
        .argParser(parsePort)
        .default(SERVE_DEFAULTS.port),
    )
    .addOption(
      new Option(
        '--mount-path <path>',
        'Mount path of the metadata route; the WebSocket is at <path>/ws.',
      ).default(SERVE_DEFAULTS.mountPath),
    );
  addTokenFlags(command);
  return command
    .addOption(
      new Option(
        '--allowed-origin <origin>',
        'Allow a browser Origin (repeatable; default: none).',
      ).argParser(collectRepeatable),
    )
    .addOption(
      new Option(
        '--allowed-host <host>',
        'Accept this Host header when bound to loopback (repeatable; localhost, 127.0.0.1 and [::1] always pass).',
      ).argParser(collectRepeatable),
    )
    .addOption(
      new Option(
        '--max-message-bytes <bytes>',
        'Largest WebSocket message / NDJSON line (default 16 MiB).',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--max-connections <count>',
        'Refuse new connections (WebSocket upgrades and Streamable HTTP initialize together) with 503 over this many.',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--max-http-connections <count>',
        'Plain HTTP connections held open at once (default 64); at the cap the oldest idle one is closed.',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--max-event-streams <count>',
        'Streamable HTTP event streams (SSE responses) held open at once, over every connection (default 1024); one more GET gets 503.',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--instance-id <id>',
        "This instance's name among several behind one load balancer: every connection id (Acp-Connection-Id) and resume token (Acpkit-Resume-Token) it issues starts with '<id>.', so the proxy can route a connection's requests and resumes to it (1 to 32 of A-Z a-z 0-9 _ -).",
      ),
    )
    .addOption(
      new Option(
        '--drain-timeout <seconds>',
        'On SIGTERM, refuse new connections and let open ones finish for up to this long before closing them (0 closes at once).',
      )
        .argParser(timerSeconds('closes open connections at once'))
        .default(SERVE_DEFAULTS.drainTimeout, String(SERVE_DEFAULTS.drainTimeout / 1000)),
    )
    .addOption(
      new Option(
        '--metrics',
        'Serve Prometheus metrics at /metrics on the same port (behind the bearer token when one is set).',
      ),
    )
    .addOption(
      new Option(
        '--resume-window <seconds>',
        'Keep a session whose client dropped without a close frame (Streamable HTTP: whose event streams all lost their reader) this long, agent included, for the client to resume it; 0 turns resume off (default 60).',
      ).argParser(timerSeconds('turns resume off')),
    )
    .addOption(
      new Option(
        '--resume-buffer-bytes <bytes>',
        'Most bytes of sent messages a session keeps until its client acknowledges them (Streamable HTTP: events kept for Last-Event-ID), plus one message (default 16 MiB); past it a resume is refused (overflow).',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--max-detached-sessions <count>',
        'Sessions waiting for their client at once, agents included, both transports together (default 64; 0 keeps none); one more ends the oldest.',
      ).argParser(parseNonNegativeInteger),
    )
    .addOption(
      new Option(
        '--max-pending-requests <count>',
        "serve: a client's requests waiting for the agent at once (default 256); one more is answered with an error.",
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--stall-timeout <seconds>',
        'Close a connection whose client reads (a WebSocket, or an event stream) or acknowledges nothing for this long while data waits (default 60; 0 disables).',
      ).argParser(stallTimeoutSeconds),
    )
    .addOption(
      new Option(
        '--dangerously-allow-unauthenticated',
        'Allow binding a non-loopback host without a bearer token.',
      ),
    );
}

/** The longest a timer can wait (2^31 - 1 ms, about 24.8 days), in whole seconds. */
const MAX_TIMER_SECONDS = 2_147_483;

/** A `<seconds>` flag a timer waits for, where 0 means `zeroMeans`. */
function timerSeconds(zeroMeans: string): (value: string) => number {
  return (value) => {
    const milliseconds = parseNonNegativeSecondsToMilliseconds(value);
    if (milliseconds > MAX_TIMER_SECONDS * 1000) {
      throw new InvalidArgumentError(`Expected at most ${MAX_TIMER_SECONDS} seconds (0 ${zeroMeans}).`);
    }
    return milliseconds;
  };
}

/** What {@link resolveServeFlags} produces. */
export interface ResolvedServeFlags {
  readonly serveOptions: ServeOptions;
  readonly token: ResolvedToken | undefined;
  /** How long a SIGTERM drain waits for open connections (milliseconds). */
  readonly drainGraceMs: number;
}

/**
 * Turns parsed serve flags into `@acpkit/remote` {@link ServeOptions}, resolving the bearer token.
 *
 * @throws {@link CliError} as `resolveBearerToken` does.
 * @example
 * ```ts
 * const { serveOptions, token } = resolveServeFlags(command.opts(), process.env);
 * ```
 */
export function resolveServeFlags(
  flags: ServeFlagValues,
  environment: NodeJS.ProcessEnv,
): ResolvedServeFlags {
  const token = resolveBearerToken(flags, environment);
  const serveOptions: ServeOptions = {
    host: flags.host,
    port: flags.port,
    mountPath: flags.mountPath,
    ...(token ? { bearerToken: token.token } : {}),
    ...(flags.dangerouslyAllowUnauthenticated ? { allowUnauthenticated: true } : {}),
    ...(flags.allowedOrigin ? { allowedOrigins: flags.allowedOrigin } : {}),
    ...(flags.allowedHost ? { allowedHosts: flags.allowedHost } : {}),
    ...(flags.maxMessageBytes !== undefined ? { maxMessageBytes: flags.maxMessageBytes } : {}),
    ...(flags.maxConnections !== undefined ? { maxConnections: flags.maxConnections } : {}),
    ...(flags.maxHttpConnections !== undefined ? { maxHttpConnections: flags.maxHttpConnections } : {}),
    ...(flags.maxEventStreams !== undefined ? { maxEventStreams: flags.maxEventStreams } : {}),
    ...(flags.instanceId !== undefined ? { instanceId: flags.instanceId } : {}),
    ...(flags.metrics ? { metrics: true } : {}),
    ...(flags.resumeWindow !== undefined ? { resumeWindowMs: flags.resumeWindow } : {}),
    ...(flags.resumeBufferBytes !== undefined ? { resumeBufferBytes: flags.resumeBufferBytes } : {}),
    ...(flags.maxDetachedSessions !== undefined ? { maxDetachedSessions: flags.maxDetachedSessions } : {}),
    ...(flags.maxPendingRequests !== undefined ? { maxPendingRequests: flags.maxPendingRequests } : {}),
    ...(flags.stallTimeout !== undefined ? { stallTimeoutMs: flags.stallTimeout } : {}),
  };
  return {
    serveOptions,
    token,
    drainGraceMs: flags.drainTimeout ?? SERVE_DEFAULTS.drainTimeout,
  };
}
