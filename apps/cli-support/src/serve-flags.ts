import type { ServeOptions } from '@acpkit/remote';
import { type Command, Option } from 'commander';
import { collectRepeatable, parsePort, parsePositiveInteger } from './flag-parsers.js';
import { type ResolvedToken, resolveBearerToken } from './token.js';

/** Defaults shown in `--help` and used when a flag is absent. */
export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 8080, mountPath: '/acp' } as const;

/** The token flags after commander parsed them. */
export interface TokenFlagValues {
  bearerToken?: string;
  tokenEnv?: string;
}

/** The flags `serve` and `expose` share, after commander parsed them. */
export interface ServeFlagValues extends TokenFlagValues {
  host: string;
  port: number;
  mountPath: string;
  allowedOrigin?: string[];
  allowedHost?: string[];
  maxMessageBytes?: number;
  maxConnections?: number;
  dangerouslyAllowUnauthenticated?: boolean;
}

/**
 * Adds the mutually exclusive `--bearer-token TOKEN | --token-env VAR` pair.
 *
 * @example
 * ```ts
 * addTokenFlags(program.command('mirror <url>'));
 * ```
 */
export function addTokenFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--bearer-token <token>',
        'Bearer token (visible to other local users in the process list; prefer --token-env).',
      ).conflicts('tokenEnv'),
    )
    .addOption(new Option('--token-env <var>', 'Read the bearer token from this environment variable.'));
}

/**
 * Adds the flags `serve` and `expose` share: `--host`, `--port`, `--mount-path`, the token pair,
 * `--allowed-origin`, `--allowed-host`, `--max-message-bytes`, `--max-connections` and
 * `--dangerously-allow-unauthenticated`.
 *
 * @example
 * ```ts
 * addServeFlags(program.command('serve <target>')).action(...);
 * ```
 */
export function addServeFlags(command: Command): Command {
  command
    .addOption(new Option('--host <host>', 'Interface to bind.').default(SERVE_DEFAULTS.host))
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
        'Refuse further WebSocket upgrades with 503 over this many.',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--dangerously-allow-unauthenticated',
        'Allow binding a non-loopback host without a bearer token.',
      ),
    );
}

/** What {@link resolveServeFlags} produces. */
export interface ResolvedServeFlags {
  readonly serveOptions: ServeOptions;
  readonly token: ResolvedToken | undefined;
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
  };
  return { serveOptions, token };
}
