// Mount path rules and the routes a server serves under it (ServerPaths).
import { RemoteProtocol } from '../shared/constants.js';
import { invalidOption } from './option-error.js';

/**
 * Normalises a mount path the way Python ACP Kit does: trimmed, one leading `/`, no trailing `/` (except `/`).
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION` when the path is blank, contains `?`/`#`/whitespace, or
 *   collides with the reserved `/healthz` or `/readyz` route.
 * @example
 * ```ts
 * normalizeMountPath('acp/'); // '/acp'
 * normalizeMountPath('/');    // '/'
 * ```
 */
export function normalizeMountPath(mount: string): string {
  const allowed =
    'a path such as "/acp" (no whitespace, query or fragment; /healthz and /readyz are reserved)';
  if (typeof mount !== 'string') throw invalidOption('mountPath', allowed, mount);
  const trimmed = mount.trim();
  if (trimmed === '' || /[\s?#]/.test(trimmed)) throw invalidOption('mountPath', allowed, mount);
  let path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  path = path.replace(/\/+$/, '');
  if (path === '') path = '/';
  if (path === RemoteProtocol.healthPath || path === RemoteProtocol.readinessPath)
    throw invalidOption('mountPath', allowed, mount);
  return path;
}

/**
 * Routes served under one mount path.
 *
 * @example
 * ```ts
 * const paths: ServerPaths = buildServerPaths('/acp'); // { metadata: '/acp', websocket: '/acp/ws', health: '/healthz', readiness: '/readyz' }
 * ```
 */
export interface ServerPaths {
  /** GET → metadata JSON; also accepts the WebSocket upgrade (the ACP draft transport's single endpoint). */
  readonly metadata: string;
  /** WebSocket upgrade route (`<mount>/ws`). */
  readonly websocket: string;
  /** Health (liveness) route (`/healthz`): 200 while the process serves HTTP, draining or not. */
  readonly health: string;
  /** Readiness route (`/readyz`): 200 while connections are accepted, 503 once the server drains or closes. */
  readonly readiness: string;
}

/**
 * Builds the routes for a mount path (normalising it first).
 *
 * @throws {@link AcpRemoteError} `INVALID_OPTION` as {@link normalizeMountPath}.
 * @example
 * ```ts
 * buildServerPaths('/').websocket; // '/ws'
 * ```
 */
export function buildServerPaths(mount: string): ServerPaths {
  const metadata = normalizeMountPath(mount);
  return {
    metadata,
    websocket: metadata === '/' ? '/ws' : `${metadata}/ws`,
    health: RemoteProtocol.healthPath,
    readiness: RemoteProtocol.readinessPath,
  };
}
