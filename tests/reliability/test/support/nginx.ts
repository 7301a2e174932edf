// A real nginx in front of acpremote: TLS with a self-signed certificate made at test time, WebSocket upgrade
// headers, least_conn (or client-address hashing) over the given upstreams and a short proxy_read_timeout, all in a
// temp directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesInstalled } from '../../../../scripts/test/step-markers.mjs';
import { selfSignedCertificate } from './certificate.js';
import { foregroundProxy } from './foreground-proxy.js';
import { reserveFreePort } from './ports.js';

/** A running nginx TLS proxy. */
export interface NginxProxy {
  /** The HTTPS port nginx listens on (127.0.0.1). */
  readonly port: number;
  /** PEM file of the self-signed certificate, for NODE_EXTRA_CA_CERTS. */
  readonly certificatePath: string;
  readonly directory: string;
  /** nginx's error log so far (for failure messages). */
  errorLog(): string;
  /**
   * nginx's access log so far, one line per finished request: `status=… upstreams="…" statuses="…"`, where
   * `upstreams` lists every upstream tried for it in order (`127.0.0.1:8080, 127.0.0.1:8081` after a retry) and
   * `statuses` their answers (`503, 101`), then `connection="…"` (the request's `Acp-Connection-Id`). A WebSocket's
   * line is written when it closes.
   */
  accessLog(): string;
  close(): Promise<void>;
}

/**
 * How nginx picks the upstream of a new connection:
 * - `least_conn`: the one with the fewest open connections (ties: round robin). Good for long-lived WebSockets, but a
 *   reconnect (a resume) can land on another instance than the one holding its session.
 * - `hash $remote_addr consistent`: every connection from one client address goes to the same upstream (a ketama
 *   ring over the upstreams), so a resume reaches the instance holding its session. A retry
 *   (`proxy_next_upstream`) moves on to the next upstream on the ring.
 */
export type NginxBalancing = 'least_conn' | 'hash $remote_addr consistent';

/** Options of {@link startNginxTlsProxy}. */
export interface NginxProxyOptions {
  /** `host:port` of every upstream. */
  upstreams: string[];
  /** The upstream balancing method; `least_conn` when omitted. */
  balancing?: NginxBalancing;
  /**
   * Parameters appended to every `server` line of the upstream, e.g. `max_fails=0` (never take an upstream out of
   * rotation after a failed attempt; nginx's default is `max_fails=1 fail_timeout=10s`). None when omitted.
   */
  serverParameters?: string;
  /** nginx `proxy_read_timeout` / `proxy_send_timeout` in seconds. */
  readTimeoutSeconds: number;
  /**
   * Retry a request (a WebSocket upgrade included) on the next upstream when one answers 503, as an operator does
   * for rolling deploys: a draining `acpremote` refuses new upgrades with 503, and nginx then also takes that
   * upstream out of rotation for `fail_timeout` (passive health check).
   */
  retryOn503?: boolean;
  /**
   * The upstreams, maps and `server` block to run instead of the ones built from the options above (`upstreams` then
   * only lists where nginx must reach): e.g. a configuration taken from the docs. `listen` is the `listen` directive's
   * value and `tls` the certificate directives, for the `server` block to use.
   */
  configuration?: (context: { readonly listen: string; readonly tls: string }) => string;
}

/**
 * Starts nginx in the foreground (`daemon off`) with a fresh self-signed certificate for `localhost` and
 * 127.0.0.1, proxying `/` (WebSocket upgrades included) to the upstreams with `options.balancing` (`least_conn` by
 * default).
 *
 * @example
 * ```ts
 * const proxy = await startNginxTlsProxy({ upstreams: ['127.0.0.1:8080'], readTimeoutSeconds: 3 });
 * const sticky = await startNginxTlsProxy({
 *   upstreams: ['127.0.0.1:8080', '127.0.0.1:8081'],
 *   balancing: 'hash $remote_addr consistent',
 *   serverParameters: 'max_fails=0',
 *   readTimeoutSeconds: 60,
 *   retryOn503: true,
 * });
 * ```
 */
export async function startNginxTlsProxy(options: NginxProxyOptions): Promise<NginxProxy> {
  // In the test command, nginx may still be being installed (a fresh machine).
  await servicesInstalled();
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-nginx-'));
  const { certificatePath, keyPath } = selfSignedCertificate(directory);
  const port = await reserveFreePort();
  const errorLogPath = join(directory, 'error.log');
  const temp = (name: string) => join(directory, name);
  const configuration = `
daemon off;
worker_processes 1;
pid ${temp('nginx.pid')};
error_log ${errorLogPath} info;
events { worker_connections 512; }
http {
  log_format upstreams 'status=$status upstreams="$upstream_addr" statuses="$upstream_status" connection="$http_acp_connection_id"';
  access_log ${temp('access.log')} upstreams;
  client_body_temp_path ${temp('client-body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
${
  options.configuration?.({
    listen: `127.0.0.1:${port} ssl`,
    tls: `ssl_certificate ${certificatePath}; ssl_certificate_key ${keyPath};`,
  }) ??
  `  upstream acpremote {
    ${options.balancing ?? 'least_conn'};
${options.upstreams.map((upstream) => `    server ${[upstream, options.serverParameters].filter(Boolean).join(' ')};`).join('\n')}
  }
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certificatePath};
    ssl_certificate_key ${keyPath};
    location / {
      proxy_pass http://acpremote;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_read_timeout ${options.readTimeoutSeconds}s;
      proxy_send_timeout ${options.readTimeoutSeconds}s;
      proxy_buffering off;${options.retryOn503 ? '\n      proxy_next_upstream error timeout http_503;' : ''}
    }
  }`
}
}
`;
  const configurationPath = join(directory, 'nginx.conf');
  writeFileSync(configurationPath, configuration);
  const child: ChildProcess = spawn('nginx', ['-p', directory, '-e', errorLogPath, '-c', configurationPath], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const readLog = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const errorLog = () => readLog(errorLogPath);
  const accessLog = () => readLog(temp('access.log'));
  const close = await foregroundProxy('nginx', child, port, directory, errorLog);
  return { port, certificatePath, directory, errorLog, accessLog, close };
}
