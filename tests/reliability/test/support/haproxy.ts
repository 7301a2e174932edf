// A real HAProxy in front of acpremote instances: TLS with a self-signed certificate made at test time, a
// configuration the test gives (e.g. the docs' own), and a log of where each request went, all in a temp directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesInstalled } from '../../../../scripts/test/step-markers.mjs';
import { selfSignedCertificate } from './certificate.js';
import { foregroundProxy } from './foreground-proxy.js';
import { reserveFreePort } from './ports.js';

/** A running HAProxy TLS proxy. */
export interface HaproxyProxy {
  /** The HTTPS port HAProxy listens on (127.0.0.1). */
  readonly port: number;
  /** PEM file of the self-signed certificate, for NODE_EXTRA_CA_CERTS. */
  readonly certificatePath: string;
  /**
   * HAProxy's log so far: its own messages, and one line per finished request, `status=… server=HOST:PORT
   * connection=…` (the server that answered it and the request's `Acp-Connection-Id`, `-` without one). A
   * WebSocket's or an event stream's line is written when it ends.
   */
  log(): string;
  close(): Promise<void>;
}

/** What {@link startHaproxyTlsProxy} hands the configuration: where to bind and with which certificate. */
export interface HaproxyListen {
  /** The `bind` line's address and TLS parameters, e.g. `127.0.0.1:PORT ssl crt /tmp/…/haproxy.pem`. */
  readonly bind: string;
}

/**
 * Starts HAProxy in the foreground with `configuration` (its `defaults`, `frontend` and `backend` sections; the
 * `global` section with logging to stdout is added here). The request log line is set on every `defaults` section,
 * and the connection id captured on every `frontend`'s requests, so a test can check where each request went.
 *
 * @example
 * ```ts
 * const proxy = await startHaproxyTlsProxy(({ bind }) => `defaults\n  mode http\nfrontend f\n  bind ${bind}\n…`);
 * ```
 */
export async function startHaproxyTlsProxy(
  configuration: (listen: HaproxyListen) => string,
): Promise<HaproxyProxy> {
  // In the test command, HAProxy may still be being installed (a fresh machine).
  await servicesInstalled();
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-haproxy-'));
  const { certificatePath, keyPath } = selfSignedCertificate(directory);
  // HAProxy reads the certificate and its key from one file.
  const bundlePath = join(directory, 'haproxy.pem');
  writeFileSync(bundlePath, readFileSync(certificatePath, 'utf8') + readFileSync(keyPath, 'utf8'));
  const port = await reserveFreePort();
  const sections = configuration({ bind: `127.0.0.1:${port} ssl crt ${bundlePath}` })
    .replace(
      /^defaults\n/gm,
      'defaults\n  log global\n  log-format "status=%ST server=%si:%sp connection=%[capture.req.hdr(0)]"\n',
    )
    .replace(
      /^(frontend .*\n(?: {2}.*\n)*? {2}bind .*\n)/gm,
      '$1  http-request capture req.hdr(acp-connection-id) len 128\n',
    );
  const configurationPath = join(directory, 'haproxy.cfg');
  writeFileSync(configurationPath, `global\n  log stdout format raw local0 info\n  maxconn 512\n${sections}`);
  let output = '';
  // -db: foreground, no daemon; -W is not needed (one process, stopped with SIGTERM).
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', configurationPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => {
      output += text;
    });
  }
  const close = await foregroundProxy('haproxy', child, port, directory, () => output);
  return { port, certificatePath, log: () => output, close };
}
