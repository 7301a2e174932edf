// A self-signed TLS certificate for localhost and 127.0.0.1, made at test time for the suite's real proxies.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** PEM files of a certificate and its key. */
export interface TestCertificate {
  /** The certificate (for `NODE_EXTRA_CA_CERTS` or a client's `ca`). */
  readonly certificatePath: string;
  readonly keyPath: string;
}

/**
 * Writes `cert.pem` and `key.pem` into `directory`: an EC P-256 certificate (generated in milliseconds, unlike RSA)
 * for `localhost` and 127.0.0.1, valid one day.
 *
 * @example
 * ```ts
 * const { certificatePath, keyPath } = selfSignedCertificate(mkdtempSync(join(tmpdir(), 'proxy-')));
 * ```
 */
export function selfSignedCertificate(directory: string): TestCertificate {
  const certificatePath = join(directory, 'cert.pem');
  const keyPath = join(directory, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certificatePath,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certificatePath, keyPath };
}
