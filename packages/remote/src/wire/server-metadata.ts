// The metadata document a server serves at its mount path: building, parsing and fetching it.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createRequire } from 'node:module';
import type { ServerPaths } from '../options/mount-path.js';

const require = createRequire(import.meta.url);
// The package's own name resolves (self-reference through `exports`) from `src/wire/` and the bundled `dist/` alike.
const packageJson = require('@acpkit/remote/package.json') as { version: string };

/**
 * The ACP protocol version of the pinned SDK (its `PROTOCOL_VERSION`; server-metadata.test.ts compares them), written here
 * so serving metadata never loads the SDK's entry and its schemas (see `WireError` in json-rpc.ts).
 */
const ACP_PROTOCOL_VERSION = 1;

/**
 * Version of this package, reported in server metadata as `package_version`.
 *
 * @example
 * ```ts
 * console.log(`@acpkit/remote ${PACKAGE_VERSION}`);
 * ```
 */
export const PACKAGE_VERSION: string = packageJson.version;

/**
 * Metadata JSON served at GET `<mount>`. Keys are Python ACP Kit's snake_case keys (so its clients can read it),
 * plus `unstable_protocol` and `acp_protocol_version`. It never carries a command line, an environment value or a
 * secret.
 *
 * @example
 * ```ts
 * const metadata: ServerMetadata = await (await fetch('http://127.0.0.1:8080/acp')).json();
 * console.log(metadata.websocket_path); // '/acp/ws'
 * ```
 */
export interface ServerMetadata {
  acp_protocol_version: number;
  auth_required: boolean;
  compression: null;
  health_path: string;
  max_queue: number;
  max_size: number;
  metadata_path: string;
  package_version: string;
  remote_cwd: string | null;
  supported_agent_families: string[];
  supported_auth_modes: string[];
  transport_kind: 'websocket';
  transport_version: 1;
  unstable_protocol: boolean;
  websocket_path: string;
}

/**
 * Inputs of {@link buildServerMetadata}.
 *
 * @example
 * ```ts
 * const input: ServerMetadataInput = { paths: buildServerPaths('/acp'), authRequired: false, maxMessageBytes: 1024,
 *   remoteCwd: undefined, useUnstableProtocol: false };
 * ```
 */
export interface ServerMetadataInput {
  paths: ServerPaths;
  authRequired: boolean;
  maxMessageBytes: number;
  remoteCwd: string | undefined;
  useUnstableProtocol: boolean;
}

/**
 * Builds the metadata document (keys in sorted order, like Python ACP Kit).
 *
 * @example
 * ```ts
 * buildServerMetadata({ paths: buildServerPaths('/acp'), authRequired: true, maxMessageBytes: 1024,
 *   remoteCwd: '/srv', useUnstableProtocol: false }).supported_auth_modes; // ['bearer']
 * ```
 */
export function buildServerMetadata(input: ServerMetadataInput): ServerMetadata {
  return {
    acp_protocol_version: ACP_PROTOCOL_VERSION,
    auth_required: input.authRequired,
    compression: null,
    health_path: input.paths.health,
    max_queue: 16,
    max_size: input.maxMessageBytes,
    metadata_path: input.paths.metadata,
    package_version: PACKAGE_VERSION,
    remote_cwd: input.remoteCwd ?? null,
    supported_agent_families: [],
    supported_auth_modes: input.authRequired ? ['bearer'] : [],
    transport_kind: 'websocket',
    transport_version: 1,
    unstable_protocol: input.useUnstableProtocol,
    websocket_path: input.paths.websocket,
  };
}

/**
 * Derives the metadata URL from a client's URL: `ws(s)://h/p/ws` → `http(s)://h/p`; a URL on the single `<mount>`
 * endpoint (`ws(s)://h/p`, or the Streamable HTTP endpoint `http(s)://h/p`) maps to itself over HTTP. Undefined for
 * other schemes.
 *
 * @example
 * ```ts
 * metadataUrlFor('ws://127.0.0.1:8080/acp/ws'); // 'http://127.0.0.1:8080/acp'
 * ```
 */
export function metadataUrlFor(clientUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientUrl);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    // An ACP Streamable HTTP endpoint is the mount path, where the metadata document is served.
    url.search = '';
    url.hash = '';
    return url.toString();
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') return undefined;
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  url.search = '';
  url.hash = '';
  if (url.pathname === '/ws') url.pathname = '/';
  else if (url.pathname.endsWith('/ws')) url.pathname = url.pathname.slice(0, -3);
  return url.toString();
}

/** Reads a metadata document defensively; undefined when it is not one. */
export function parseServerMetadata(value: unknown): ServerMetadata | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (record.transport_kind !== 'websocket') return undefined;
  const remoteCwd = record.remote_cwd;
  return {
    acp_protocol_version: typeof record.acp_protocol_version === 'number' ? record.acp_protocol_version : 1,
    auth_required: record.auth_required === true,
    compression: null,
    health_path: typeof record.health_path === 'string' ? record.health_path : '/healthz',
    max_queue: typeof record.max_queue === 'number' ? record.max_queue : 16,
    max_size: typeof record.max_size === 'number' ? record.max_size : 0,
    metadata_path: typeof record.metadata_path === 'string' ? record.metadata_path : '',
    package_version: typeof record.package_version === 'string' ? record.package_version : '',
    remote_cwd: typeof remoteCwd === 'string' && remoteCwd !== '' ? remoteCwd : null,
    supported_agent_families: Array.isArray(record.supported_agent_families)
      ? record.supported_agent_families.filter((item): item is string => typeof item === 'string')
      : [],
    supported_auth_modes: Array.isArray(record.supported_auth_modes)
      ? record.supported_auth_modes.filter((item): item is string => typeof item === 'string')
      : [],
    transport_kind: 'websocket',
    transport_version: 1,
    unstable_protocol: record.unstable_protocol === true,
    websocket_path: typeof record.websocket_path === 'string' ? record.websocket_path : '',
  };
}

const MAX_METADATA_BYTES = 1024 * 1024;

/**
 * Fetches server metadata for a WebSocket URL; undefined on any failure (non-200, bad JSON, timeout, ...).
 * Uses `node:http(s)` rather than `fetch` so a custom CA (self-signed `wss://`) applies to it too.
 *
 * @example
 * ```ts
 * const metadata = await fetchServerMetadata('ws://127.0.0.1:8080/acp/ws', { headers: {}, timeoutMs: 5_000 });
 * ```
 */
export async function fetchServerMetadata(
  webSocketUrl: string,
  options: {
    headers: Record<string, string>;
    timeoutMs: number;
    ca?: string | Buffer | Array<string | Buffer>;
  },
): Promise<ServerMetadata | undefined> {
  const url = metadataUrlFor(webSocketUrl);
  if (!url) return undefined;
  const get = url.startsWith('https:') ? httpsGet : httpGet;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: ServerMetadata | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const request = get(
      url,
      { headers: options.headers, ...(options.ca ? { ca: options.ca } : {}) },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          finish(undefined);
          return;
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_METADATA_BYTES) {
            request.destroy();
            finish(undefined);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            finish(parseServerMetadata(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          } catch {
            finish(undefined);
          }
        });
        response.on('error', () => finish(undefined));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(undefined);
    }, options.timeoutMs);
    request.on('error', () => finish(undefined));
  });
}
