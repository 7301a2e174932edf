/**
 * `@acpkit/remote/internal`: what the CLIs (`acpremote`, `acpkit`) and the repository's own tests share with this
 * package beyond its public surface. Not public API: it may change in any release without notice; use the package's
 * main entry point instead.
 */

export { buildServerPaths } from './options/mount-path.js';
export { isLoopbackHost } from './shared/http-headers.js';
export { buildServerMetadata } from './wire/server-metadata.js';
