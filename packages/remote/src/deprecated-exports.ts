// Internals that used to be public. Each stays exported for one more minor, marked @deprecated, and warns once per
// process when called (a constant cannot warn); the implementations live in their own modules.

import {
  applyHostOwnership as applyHostOwnershipInternal,
  rewriteSessionCwd as rewriteSessionCwdInternal,
} from './client/mirror.js';
import { tokensMatch as tokensMatchInternal } from './server/admission.js';
import { RemoteDeprecationCode, warnDeprecatedOnce } from './shared/deprecation-warnings.js';
import { PACKAGE_VERSION as packageVersion } from './wire/server-metadata.js';

const REMOVAL = 'It is removed from the public API in @acpkit/remote 0.3.0.';

/**
 * Version of `@acpkit/remote`, as reported in server metadata.
 *
 * @deprecated Internal. Read `server.metadata.package_version` (or the metadata of a remote server) instead.
 *   Removal: `@acpkit/remote` 0.3.0.
 * @example
 * ```ts
 * const server = await serveCommand(['node', 'agent.js'], { port: 0 });
 * console.error(server.metadata.package_version);
 * ```
 */
export const PACKAGE_VERSION: string = packageVersion;

/**
 * Constant-time token comparison used by the servers' bearer check.
 *
 * @deprecated Internal: the servers check tokens themselves. Use `crypto.timingSafeEqual` over digests if you need
 *   one. Removal: `@acpkit/remote` 0.3.0.
 * @example
 * ```ts
 * tokensMatch('secret', 'secret'); // true, with a DeprecationWarning (ACPKIT_DEP003) the first time
 * ```
 */
export const tokensMatch: typeof tokensMatchInternal = (presented, expected) => {
  warnDeprecatedOnce(
    RemoteDeprecationCode.TokensMatch,
    `tokensMatch is an internal of @acpkit/remote. ${REMOVAL}`,
  );
  return tokensMatchInternal(presented, expected);
};

/**
 * The mirror's host-ownership rewrite of `initialize` params.
 *
 * @deprecated Internal: `runMirror` applies it (option `hostOwnership`). Removal: `@acpkit/remote` 0.3.0.
 * @example
 * ```ts
 * await runMirror(url, { hostOwnership: 'remote' }); // instead of calling applyHostOwnership yourself
 * ```
 */
export const applyHostOwnership: typeof applyHostOwnershipInternal = (params, ownership) => {
  warnDeprecatedOnce(
    RemoteDeprecationCode.ApplyHostOwnership,
    `applyHostOwnership is an internal of @acpkit/remote; runMirror applies it (option hostOwnership). ${REMOVAL}`,
  );
  return applyHostOwnershipInternal(params, ownership);
};

/**
 * The mirror's rewrite of a session request's `cwd` to the server's `remote_cwd`.
 *
 * @deprecated Internal: `runMirror` applies it. Removal: `@acpkit/remote` 0.3.0.
 * @example
 * ```ts
 * await runMirror(url); // rewrites session cwds to the server's remote_cwd itself
 * ```
 */
export const rewriteSessionCwd: typeof rewriteSessionCwdInternal = (method, params, remoteCwd) => {
  warnDeprecatedOnce(
    RemoteDeprecationCode.RewriteSessionCwd,
    `rewriteSessionCwd is an internal of @acpkit/remote; runMirror applies it. ${REMOVAL}`,
  );
  return rewriteSessionCwdInternal(method, params, remoteCwd);
};
