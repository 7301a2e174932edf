// serveWebClient: one loopback HTTP server for the page and, on the same origin, the agent behind `@acpkit/remote`'s
// relay (serveCommand), every request through the access gate.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RemoteLogger, type RemoteServer, serveCommand, silentLogger } from '@acpkit/remote';
import { AccessGate, type Refusal, randomSecret } from './access-gate.js';
import { forwardToAgent } from './agent-proxy.js';
import { WebClientError, WebClientErrorCode, WebClientOptionError } from './errors.js';
import { SECURITY_HEADERS, StaticAssets } from './static-assets.js';

/** Options of {@link serveWebClient}. */
export interface WebClientOptions {
  /** The agent: a stdio ACP command as argv (no shell), one process per page connection. */
  readonly command: readonly string[];
  /** The agent's working directory, also the `cwd` of the sessions the page opens. Default: `process.cwd()`. */
  readonly cwd?: string;
  /** The agent's environment (default: this process's). */
  readonly env?: Record<string, string>;
  /** Variables removed from the agent's environment. */
  readonly unsetEnv?: readonly string[];
  /** Address to listen on. Default `127.0.0.1`; any other needs `bearerToken`. */
  readonly host?: string;
  /** Port; `0` (the default) lets the OS choose. */
  readonly port?: number;
  /** Accepted from other devices: `Authorization: Bearer`, or `?token=` to sign a browser in. Required off loopback. */
  readonly bearerToken?: string;
  /** Extra Host names accepted while on loopback (a reverse proxy's public name). */
  readonly allowedHosts?: readonly string[];
  /** How long a page that went away (a reload, a dropped network) may come back and get what it missed. Default 10 min. */
  readonly resumeWindowMs?: number;
  /** The page's title (e.g. the agent's command). */
  readonly title?: string;
  /** Where the server's lines go (refusals, the relay's lines). Default: none. */
  readonly logger?: RemoteLogger;
}

/** A running web client: `url` carries the one-time login token. */
export interface WebClientServer {
  /** Open this in a browser: the page's address with the one-time `?token=`. */
  readonly url: string;
  /** The page's origin (no token). */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  /** Stops the server, the relay and every agent process. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
/** The page's directory, next to the built server module (dist/page). */
const PAGE_DIRECTORY = new URL('./page/', import.meta.url);
const DEFAULT_RESUME_WINDOW_MS = 10 * 60_000;

function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function refuse(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(`${refusal.message}\n`);
}

/**
 * Serves the browser client for a stdio ACP agent on one loopback origin: the page, and at `/acp` the agent through
 * the same relay as `acpremote expose`, whose token stays on this side. The printed URL's token is spent by the first
 * browser that opens it (an HttpOnly cookie replaces it); without it no page and no API answers. Host and Origin are
 * checked on every request.
 *
 * @example
 * ```ts
 * import { serveWebClient } from '@acpkit/web-client';
 *
 * const web = await serveWebClient({ command: ['node', 'agent.js'] });
 * console.error(`Open ${web.url}`);
 * // ... later
 * await web.close();
 * ```
 */
export async function serveWebClient(options: WebClientOptions): Promise<WebClientServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (options.command.length === 0 || options.command[0] === '') {
    throw new WebClientOptionError(
      'command',
      'a command to run (a program and its arguments)',
      'an empty command',
    );
  }
  if (options.bearerToken !== undefined && !/^[\x21-\x7e]+$/.test(options.bearerToken)) {
    // The token itself is never echoed.
    throw new WebClientOptionError(
      'bearerToken',
      'visible ASCII characters (no spaces or control characters)',
      'a token with other characters',
    );
  }
  if (!loopback && options.bearerToken === undefined) {
    throw new WebClientError(
      WebClientErrorCode.UnauthenticatedPublicBind,
      `Listening on ${host} lets other devices reach the agent: give a bearer token (--token-env VAR or --token-file FILE).`,
    );
  }
  const logger = options.logger ?? silentLogger;
  const assets = new StaticAssets(PAGE_DIRECTORY);
  const cwd = options.cwd ?? process.cwd();
  const relayToken = randomSecret();
  const relay: RemoteServer = await serveCommand([...options.command], {
    host: '127.0.0.1',
    port: 0,
    bearerToken: relayToken,
    cwd,
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.unsetEnv !== undefined ? { unsetEnv: [...options.unsetEnv] } : {}),
    resumeWindowMs: options.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS,
    logger,
  });
  const target = { endpoint: relay.endpoint, bearerToken: relayToken };
  const pageConfig = JSON.stringify({ cwd, title: options.title ?? options.command.join(' ') });

  const server = createServer();
  let gate: AccessGate | undefined;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handle(gate as AccessGate, request, response);
  });

  function handle(access: AccessGate, request: IncomingMessage, response: ServerResponse): void {
    const log = (refusal: Refusal) => {
      logger.info('request refused', {
        reason: refusal.reason,
        status: refusal.status,
        remoteAddress: request.socket.remoteAddress,
        path: (request.url ?? '').split('?')[0],
      });
      refuse(response, refusal);
    };
    const originProblem = access.checkOrigin(request);
    if (originProblem !== undefined) {
      log(originProblem);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const token = url.searchParams.get('token');
    if (url.pathname === '/' && token !== null && (request.method === 'GET' || request.method === 'HEAD')) {
      const session = access.exchange(token);
      if (session === undefined) {
        log({
          status: 401,
          reason: 'auth',
          message:
            'This link is spent or wrong: its token signs in one browser, once. Restart acpkit web for a new link.',
        });
        return;
      }
      // The token leaves the address bar and the history at once; the cookie carries the session from here on.
      response.writeHead(303, {
        ...SECURITY_HEADERS,
        location: '/',
        'set-cookie': access.cookieFor(session, false),
        'cache-control': 'no-store',
      });
      response.end();
      return;
    }
    if (!access.isAuthenticated(request)) {
      log({
        status: 401,
        reason: 'auth',
        message: 'Sign in first: open the URL acpkit web printed (with its ?token=).',
      });
      return;
    }
    if (url.pathname === '/acp') {
      forwardToAgent(target, request, response);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET, HEAD', 'content-type': 'text/plain' });
      response.end('Method not allowed.\n');
      return;
    }
    if (url.pathname === '/config.json') {
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'application/json',
        'cache-control': 'no-store',
      });
      response.end(pageConfig);
      return;
    }
    if (assets.serve(url.pathname, request, response)) return;
    response.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    response.end('Not found.\n');
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host.replace(/^\[(.*)\]$/, '$1'), () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await relay.close();
    throw new WebClientError(
      WebClientErrorCode.ListenFailed,
      `Could not listen on ${host}:${options.port ?? 0}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const port = (server.address() as AddressInfo).port;
  gate = new AccessGate({
    loopback,
    bindHost: host,
    port,
    ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.bearerToken !== undefined ? { bearerToken: options.bearerToken } : {}),
  });
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const origin = `http://${urlHost}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${gate.loginToken}`,
    origin,
    host,
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await Promise.all([stopped, relay.close()]);
      })();
      return closing;
    },
  };
}
