// The page's built files (dist/page), read once at start and served from memory, gzip-compressed when accepted.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { WebClientError, WebClientErrorCode } from './errors.js';

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/assets/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/assets/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

/**
 * What a page may do: scripts and styles from this origin only, fetches to this origin only, no frames, no plugins,
 * no inline code. Agent text that somehow became markup still could not run.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every answer of the web server carries. */
export const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** The page's files, loaded from `directory` (the package's dist/page). */
export class StaticAssets {
  private readonly assets = new Map<string, Asset>();

  constructor(directory: URL) {
    for (const [path, { file, type }] of Object.entries(ASSETS)) {
      let body: Buffer;
      try {
        body = readFileSync(new URL(file, directory));
      } catch (error) {
        throw new WebClientError(
          WebClientErrorCode.AssetsMissing,
          `The web client's page is missing (${file} in ${directory.pathname}): reinstall @acpkit/web-client, or build it in a checkout (pnpm build).`,
          { cause: error },
        );
      }
      this.assets.set(path, { type, body, gzipped: gzipSync(body) });
    }
  }

  /** Serves `path` when it is one of the page's files; false when it is not. */
  serve(path: string, request: IncomingMessage, response: ServerResponse): boolean {
    const asset = this.assets.get(path);
    if (asset === undefined) return false;
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const body = gzip ? asset.gzipped : asset.body;
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': asset.type,
      'content-length': body.length,
      'cache-control': 'no-store',
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  }
}
