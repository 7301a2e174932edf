// Every option of @acpkit/remote is checked here, once, with one rule per option and one error (INVALID_OPTION,
// naming the option, what is allowed and what was given). The servers, the client socket and serveCommand only ever
// see resolved options.
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { RemoteDefaults, RemoteProtocol } from '../shared/constants.js';
import { type CookieStore, MemoryCookieStore } from '../shared/cookie-store.js';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { isLoopbackHost, normalizeOrigin, parseHostHeader } from '../shared/http-headers.js';
import { createStderrLogger, type RemoteLogger } from '../shared/logger.js';
import type { ConnectionEvent } from './connection-events.js';
import { buildServerPaths, type ServerPaths } from './mount-path.js';
import { describeOptionValue, invalidOption } from './option-error.js';
import type {
  CommandOptions,
  ConnectOptions,
  HostOwnership,
  MirrorOptions,
  ResumeWireChoice,
  ServeOptions,
} from './options.js';
import { buildAllowedHostNames, type SecurityPolicy } from './security-policy.js';

/** The integer options and what each allows. */
const INTEGER_RULES = {
  port: { min: 0, max: 65_535, allowed: 'an integer from 0 to 65535 (0 picks any free port)' },
  maxConnections: { min: 1, max: undefined, allowed: 'a positive integer' },
  maxHttpConnections: { min: 1, max: undefined, allowed: 'a positive integer' },
  maxEventStreams: { min: 1, max: undefined, allowed: 'a positive integer' },
  maxMessageBytes: { min: 1, max: undefined, allowed: 'a positive integer number of bytes' },
  pingIntervalMs: {
    min: 0,
    max: undefined,
    allowed: 'a non-negative integer number of milliseconds (0 disables pings)',
  },
  stallTimeoutMs: {
    min: 0,
    max: undefined,
    allowed: 'a non-negative integer number of milliseconds (0 disables the stall timeout)',
  },
  openTimeoutMs: { min: 1, max: undefined, allowed: 'a positive integer number of milliseconds' },
  resumeWindowMs: {
    min: 0,
    // setTimeout's limit (about 24.8 days).
    max: 2_147_483_647,
    allowed: 'a non-negative integer number of milliseconds up to 2147483647 (0 turns resume off)',
  },
  resumeBufferBytes: { min: 1, max: undefined, allowed: 'a positive integer number of bytes' },
  reconnectTimeoutMs: {
    min: 0,
    max: 2_147_483_647,
    allowed: 'a non-negative integer number of milliseconds up to 2147483647',
  },
  maxDetachedSessions: {
    min: 0,
    max: undefined,
    allowed: 'a non-negative integer (0 keeps no session for a resume)',
  },
  maxPendingRequests: { min: 1, max: undefined, allowed: 'a positive integer' },
  graceMs: {
    min: 0,
    max: 2_147_483_647,
    allowed:
      'a non-negative integer number of milliseconds up to 2147483647 (0 closes open connections at once)',
  },
} as const;

function integerOption(option: keyof typeof INTEGER_RULES, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const rule = INTEGER_RULES[option];
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < rule.min ||
    (rule.max !== undefined && value > rule.max)
  ) {
    throw invalidOption(option, rule.allowed, value);
  }
  return value;
}

/**
 * Checks the `graceMs` of `RemoteServer.drain` / `close`.
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION` when it is not a non-negative integer a timer can wait.
 * @example
 * ```ts
 * resolveGraceMs(undefined); // 30000
 * ```
 */
export function resolveGraceMs(value: unknown): number {
  return integerOption('graceMs', value, RemoteDefaults.drainGraceMs);
}

function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidOption(option, 'true or false', value);
  return value;
}

function functionOption<Fn extends (...args: never[]) => unknown>(
  option: string,
  value: unknown,
): Fn | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function')
    throw invalidOption(option, 'a function', value, { shown: `a ${typeof value}` });
  return value as Fn;
}

function choiceOption<Choice extends string>(
  option: string,
  value: unknown,
  choices: readonly Choice[],
  fallback: Choice,
): Choice {
  if (value === undefined) return fallback;
  if (!choices.includes(value as Choice)) {
    throw invalidOption(
      option,
      `one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}`,
      value,
    );
  }
  return value as Choice;
}

function describeCharacterClass(code: number): string {
  if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) return 'whitespace';
  if (code < 0x20 || code === 0x7f) return 'a control character';
  return 'a non-ASCII character';
}

const TOKEN_ALLOWED =
  'a non-blank string of visible ASCII characters (no spaces or control characters: what an HTTP header can carry)';

/**
 * The rule of a bearer token, on both sides: surrounding whitespace is trimmed; the rest must be visible ASCII
 * (0x21–0x7E). A character an HTTP header cannot carry would make every client fail, so it is refused at start.
 * Messages never echo the token.
 */
export function resolveBearerTokenOption(value: unknown, option = 'bearerToken'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw invalidOption(option, TOKEN_ALLOWED, value, { shown: `a ${typeof value}` });
  const token = value.trim();
  if (token === '') throw invalidOption(option, TOKEN_ALLOWED, value, { shown: 'a blank string' });
  for (let index = 0; index < token.length; index += 1) {
    const code = token.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) {
      throw invalidOption(option, TOKEN_ALLOWED, value, {
        shown: `${describeCharacterClass(code)} at position ${index + 1} of ${token.length}`,
      });
    }
  }
  return token;
}

const BIND_HOST_ALLOWED = 'a host name or IP address to bind (an IPv6 address may be bracketed: [::1])';

/** The bind host: trimmed, an IPv6 address unbracketed (`[::1]` → `::1`, as `listen` needs it). */
function resolveBindHost(value: unknown): string {
  if (value === undefined) return RemoteDefaults.host;
  if (typeof value !== 'string') throw invalidOption('host', BIND_HOST_ALLOWED, value);
  const host = value.trim();
  if (host === '' || /[\s/?#@\\]/.test(host)) throw invalidOption('host', BIND_HOST_ALLOWED, value);
  const bracketed = /^\[(.*)\]$/.exec(host);
  if (bracketed) {
    const inner = bracketed[1] ?? '';
    if (isIP(inner) !== 6) throw invalidOption('host', BIND_HOST_ALLOWED, value);
    return inner;
  }
  return host;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,32}$/;

function resolveInstanceId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !INSTANCE_ID.test(value))
    throw invalidOption('instanceId', '1 to 32 characters of A-Z, a-z, 0-9, _ and -', value);
  return value;
}

/** Options of the servers after validation and defaults. */
export interface ResolvedServeOptions {
  host: string;
  port: number;
  paths: ServerPaths;
  policy: SecurityPolicy;
  maxConnections: number;
  maxHttpConnections: number;
  maxEventStreams: number;
  /** The prefix of this instance's connection ids, when set. */
  instanceId: string | undefined;
  maxMessageBytes: number;
  pingIntervalMs: number;
  stallTimeoutMs: number;
  /** 0: resume off. */
  resumeWindowMs: number;
  resumeBufferBytes: number;
  maxDetachedSessions: number;
  maxPendingRequests: number;
  useUnstableProtocol: boolean;
  remoteCwd: string | undefined;
  logger: RemoteLogger;
  tls: { key: string | Buffer; cert: string | Buffer } | undefined;
  metrics: boolean;
}

/**
 * Validates serve options and applies defaults.
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION`, or `UNAUTHENTICATED_PUBLIC_BIND` for a non-loopback host
 *   without `bearerToken` and without `allowUnauthenticated`.
 */
export function resolveServeOptions(options: ServeOptions, defaultRemoteCwd?: string): ResolvedServeOptions {
  const host = resolveBindHost(options.host);
  const port = integerOption('port', options.port, RemoteDefaults.port);
  const bearerToken = resolveBearerTokenOption(options.bearerToken);
  if (!isLoopbackHost(host) && bearerToken === undefined && options.allowUnauthenticated !== true) {
    throw new AcpRemoteError(
      AcpRemoteErrorCode.UnauthenticatedPublicBind,
      `refusing to serve on non-loopback host ${JSON.stringify(host)} without a bearer token; set bearerToken, ` +
        'or allowUnauthenticated if something else guards access',
    );
  }
  const tls = options.tls;
  if (tls !== undefined && (!tls?.key || !tls.cert)) {
    throw invalidOption('tls', 'an object with both key and cert (PEM)', tls, {
      shown: tls ? `keys ${describeOptionValue(Object.keys(tls))}` : describeOptionValue(tls),
    });
  }
  const allowedHosts = options.allowedHosts ?? [];
  for (const allowedHost of allowedHosts) {
    if (typeof allowedHost !== 'string' || parseHostHeader(allowedHost.trim()) === undefined) {
      throw invalidOption('allowedHosts', 'a host name as a Host header carries it', allowedHost, {
        label: 'allowedHosts entry',
      });
    }
  }
  const allowedOrigins = new Set<string>();
  for (const origin of options.allowedOrigins ?? []) {
    const normalized = typeof origin === 'string' ? normalizeOrigin(origin) : undefined;
    if (normalized === undefined) {
      throw invalidOption('allowedOrigins', 'an origin such as "https://editor.example"', origin, {
        label: 'allowedOrigins entry',
      });
    }
    allowedOrigins.add(normalized);
  }
  const paths = buildServerPaths(options.mountPath ?? RemoteDefaults.mountPath);
  const metrics = options.metrics === true;
  if (metrics && paths.metadata === RemoteProtocol.metricsPath) {
    throw invalidOption(
      'mountPath',
      `another path than ${RemoteProtocol.metricsPath} when metrics is on`,
      options.mountPath,
    );
  }
  return {
    host,
    port,
    paths,
    policy: {
      bearerToken,
      allowedOrigins,
      allowedHostNames: buildAllowedHostNames(host, allowedHosts),
    },
    maxConnections: integerOption('maxConnections', options.maxConnections, Number.POSITIVE_INFINITY),
    maxHttpConnections: integerOption(
      'maxHttpConnections',
      options.maxHttpConnections,
      RemoteDefaults.maxHttpConnections,
    ),
    maxEventStreams: integerOption(
      'maxEventStreams',
      options.maxEventStreams,
      RemoteDefaults.maxEventStreams,
    ),
    instanceId: resolveInstanceId(options.instanceId),
    maxMessageBytes: integerOption(
      'maxMessageBytes',
      options.maxMessageBytes,
      RemoteDefaults.maxMessageBytes,
    ),
    pingIntervalMs: integerOption('pingIntervalMs', options.pingIntervalMs, RemoteDefaults.pingIntervalMs),
    stallTimeoutMs: integerOption('stallTimeoutMs', options.stallTimeoutMs, RemoteDefaults.stallTimeoutMs),
    resumeWindowMs: integerOption('resumeWindowMs', options.resumeWindowMs, RemoteDefaults.resumeWindowMs),
    resumeBufferBytes: integerOption(
      'resumeBufferBytes',
      options.resumeBufferBytes,
      RemoteDefaults.resumeBufferBytes,
    ),
    maxDetachedSessions: integerOption(
      'maxDetachedSessions',
      options.maxDetachedSessions,
      RemoteDefaults.maxDetachedSessions,
    ),
    maxPendingRequests: integerOption(
      'maxPendingRequests',
      options.maxPendingRequests,
      RemoteDefaults.maxPendingRequests,
    ),
    useUnstableProtocol: options.useUnstableProtocol === true,
    remoteCwd: options.remoteCwd ?? defaultRemoteCwd,
    logger: options.logger ?? createStderrLogger(),
    tls: tls ? { key: tls.key, cert: tls.cert } : undefined,
    metrics,
  };
}

/** Options of a client connection after validation and defaults. */
export interface ResolvedConnectOptions {
  /** The URL to connect to, its scheme converted when `transport` forced the other transport. */
  url: URL;
  /** The transport spoken: from the URL's scheme, or forced by the `transport` option. */
  transport: 'streamable-http' | 'websocket';
  cookieStore: CookieStore;
  maxMessageBytes: number;
  pingIntervalMs: number;
  openTimeoutMs: number;
  /** Headers of the upgrade and the metadata fetch, `Authorization` included when a token is set. */
  headers: Record<string, string>;
  /** Whether the requests carry credentials (a token or an `Authorization` header): tells "missing" from "wrong". */
  sendsCredentials: boolean;
  ca: string | Buffer | Array<string | Buffer> | undefined;
  /** Resume on: offer the resume subprotocol, dial the durable-resume draft (as `resumeWire` allows). */
  resume: boolean;
  /** Which WebSocket resume to dial (`resume` on). */
  resumeWire: ResumeWireChoice;
  resumeBufferBytes: number;
  stallTimeoutMs: number;
  maxPendingRequests: number;
  /** Carry the editor's sessions to a new connection when the server is lost. */
  carrySessions: boolean;
  reconnectTimeoutMs: number;
  onConnectionEvent: ((event: ConnectionEvent) => void) | undefined;
  logger: RemoteLogger;
}

/** Options of the mirror after validation and defaults. */
export interface ResolvedMirrorOptions extends ResolvedConnectOptions {
  useUnstableProtocol: boolean;
  hostOwnership: HostOwnership;
  emitLatencyMeta: boolean;
}

// RFC 9110 token characters for a header name; a value may hold visible ASCII, spaces, tabs and obs-text only.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const INVALID_HEADER_VALUE = /[^\t\u0020-\u007e\u0080-\u00ff]/;

function resolveHeaders(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidOption('headers', 'an object of header names to string values', value);
  }
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(value)) {
    if (!HEADER_NAME.test(name))
      throw invalidOption('headers', 'an HTTP header name', name, { label: 'headers name' });
    if (typeof headerValue !== 'string' || INVALID_HEADER_VALUE.test(headerValue)) {
      // The value may be a credential: say what is wrong with it, never what it is.
      throw invalidOption('headers', 'a string an HTTP header can carry', headerValue, {
        label: `headers[${JSON.stringify(name)}]`,
        shown:
          typeof headerValue === 'string'
            ? 'a value with a line break or a non-Latin-1 character'
            : `a ${typeof headerValue}`,
      });
    }
    headers[name] = headerValue;
  }
  return headers;
}

function resolveCa(value: unknown): ResolvedConnectOptions['ca'] {
  if (value === undefined) return undefined;
  const isPem = (item: unknown) => typeof item === 'string' || Buffer.isBuffer(item);
  if (isPem(value) || (Array.isArray(value) && value.length > 0 && value.every(isPem))) {
    return value as ResolvedConnectOptions['ca'];
  }
  throw invalidOption('ca', 'PEM text, a Buffer, or a non-empty array of them', value, {
    shown: Array.isArray(value) ? 'an array with other items' : `a ${typeof value}`,
  });
}

/**
 * Validates the options of a client connection (`connectAcp`, and the connection part of `runMirror`).
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION`.
 */
export function resolveConnectOptions(url: string, options: ConnectOptions): ResolvedConnectOptions {
  const urlAllowed =
    'an http://, https://, ws:// or wss:// URL, e.g. "http://127.0.0.1:8080/acp" (Streamable HTTP) or "ws://127.0.0.1:8080/acp/ws"';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw invalidOption('url', urlAllowed, url, { cause: error });
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol))
    throw invalidOption('url', urlAllowed, url);
  const choice = choiceOption(
    'transport',
    options.transport,
    ['auto', 'streamable-http', 'websocket'],
    'auto',
  );
  const transport =
    choice === 'auto' ? (parsed.protocol.startsWith('http') ? 'streamable-http' : 'websocket') : choice;
  const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:';
  // The scheme follows the transport: a forced transport keeps host, port and path.
  const scheme = transport === 'streamable-http' ? (secure ? 'https:' : 'http:') : secure ? 'wss:' : 'ws:';
  if (parsed.protocol !== scheme) parsed = new URL(`${scheme}${parsed.href.slice(parsed.protocol.length)}`);
  const bearerToken = resolveBearerTokenOption(options.bearerToken);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(resolveHeaders(options.headers))) {
    if (name.toLowerCase() === 'authorization' && bearerToken !== undefined) continue;
    headers[name] = value;
  }
  if (bearerToken !== undefined) headers.Authorization = `Bearer ${bearerToken}`;
  return {
    url: parsed,
    maxMessageBytes: integerOption(
      'maxMessageBytes',
      options.maxMessageBytes,
      RemoteDefaults.maxMessageBytes,
    ),
    pingIntervalMs: integerOption('pingIntervalMs', options.pingIntervalMs, RemoteDefaults.pingIntervalMs),
    openTimeoutMs: integerOption('openTimeoutMs', options.openTimeoutMs, RemoteDefaults.openTimeoutMs),
    headers,
    sendsCredentials: Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'),
    ca: resolveCa(options.ca),
    resume: booleanOption('resume', options.resume, true),
    resumeWire: choiceOption('resumeWire', options.resumeWire, ['auto', 'acpkit', 'durable-resume'], 'auto'),
    resumeBufferBytes: integerOption(
      'resumeBufferBytes',
      options.resumeBufferBytes,
      RemoteDefaults.resumeBufferBytes,
    ),
    stallTimeoutMs: integerOption('stallTimeoutMs', options.stallTimeoutMs, RemoteDefaults.stallTimeoutMs),
    maxPendingRequests: integerOption(
      'maxPendingRequests',
      options.maxPendingRequests,
      RemoteDefaults.maxPendingRequests,
    ),
    carrySessions: booleanOption('carrySessions', options.carrySessions, true),
    reconnectTimeoutMs: integerOption(
      'reconnectTimeoutMs',
      options.reconnectTimeoutMs,
      RemoteDefaults.reconnectTimeoutMs,
    ),
    onConnectionEvent: functionOption('onConnectionEvent', options.onConnectionEvent),
    logger: options.logger ?? createStderrLogger(),
    transport,
    cookieStore: resolveCookieStore(options.cookieStore),
  };
}

function resolveCookieStore(value: unknown): CookieStore {
  if (value === undefined) return new MemoryCookieStore();
  const store = value as Partial<CookieStore> | null;
  if (
    store === null ||
    typeof store !== 'object' ||
    typeof store.store !== 'function' ||
    typeof store.header !== 'function'
  )
    throw invalidOption(
      'cookieStore',
      'an object with store(setCookie) and header() methods, e.g. a MemoryCookieStore',
      value,
      {
        shown: `a ${value === null ? 'null' : typeof value}`,
      },
    );
  return store as CookieStore;
}

/**
 * Validates the options of `runMirror`: the connection options plus the mirror's policy.
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION`.
 */
export function resolveMirrorOptions(url: string, options: MirrorOptions): ResolvedMirrorOptions {
  return {
    ...resolveConnectOptions(url, options),
    useUnstableProtocol: options.useUnstableProtocol === true,
    hostOwnership: choiceOption(
      'hostOwnership',
      options.hostOwnership,
      ['remote', 'client-passthrough'],
      'remote',
    ),
    emitLatencyMeta: options.emitLatencyMeta === true,
  };
}

/** The command of `serveCommand` and its child options after validation and defaults. */
export interface ResolvedCommand {
  argv: readonly string[];
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  stderr: 'inherit' | 'discard';
  terminateTimeoutMs: number;
}

/** The command rule shared by `serveCommand` (checked up front) and `spawnProcessGroup` (checked at each spawn). */
export function validateCommandArgv(argv: readonly string[]): void {
  const commandAllowed = 'a non-empty array of strings without NUL characters, e.g. ["node", "agent.js"]';
  if (!Array.isArray(argv) || argv.length === 0 || typeof argv[0] !== 'string' || argv[0].trim() === '') {
    throw invalidOption('command', commandAllowed, argv);
  }
  if (argv.some((part) => typeof part !== 'string' || part.includes('\0'))) {
    throw invalidOption('command', commandAllowed, argv);
  }
}

/** `terminateTimeoutMs`: a positive finite number of milliseconds (default 5 s). */
export function validateTerminateTimeout(value: number | undefined): number {
  const terminateTimeoutMs = value ?? RemoteDefaults.terminateTimeoutMs;
  if (
    typeof terminateTimeoutMs !== 'number' ||
    !Number.isFinite(terminateTimeoutMs) ||
    terminateTimeoutMs <= 0
  ) {
    throw invalidOption('terminateTimeoutMs', 'a positive finite number of milliseconds', terminateTimeoutMs);
  }
  return terminateTimeoutMs;
}

/**
 * Validates the command and child options of `serveCommand`.
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION`.
 */
export function resolveCommandOptions(argv: readonly string[], options: CommandOptions): ResolvedCommand {
  validateCommandArgv(argv);
  let cwd: string | undefined;
  if (options.cwd !== undefined) {
    if (typeof options.cwd !== 'string') throw invalidOption('cwd', 'a directory', options.cwd);
    cwd = resolvePath(options.cwd);
    let isDirectory = false;
    try {
      isDirectory = statSync(cwd).isDirectory();
    } catch {
      isDirectory = false;
    }
    if (!isDirectory) throw invalidOption('cwd', 'an existing directory', cwd);
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of options.unsetEnv ?? []) delete env[name];
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (key === '' || key.includes('=') || key.includes('\0')) {
      throw invalidOption('env', 'a non-empty name without "=" or NUL', key, { label: 'env name' });
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      // Environment values often hold secrets: say what is wrong, never what the value is.
      throw invalidOption('env', 'a string without NUL characters', value, {
        label: `env.${key}`,
        shown: typeof value === 'string' ? 'a string with a NUL character' : `a ${typeof value}`,
      });
    }
    env[key] = value;
  }
  const stderr = choiceOption('stderr', options.stderr, ['inherit', 'discard'], 'inherit');
  const terminateTimeoutMs = validateTerminateTimeout(options.terminateTimeoutMs);
  return { argv: [...argv], cwd, env, stderr, terminateTimeoutMs };
}
