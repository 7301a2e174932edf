/**
 * Public surface of @acpkit/web-client: the server that serves the browser client and the agent on one origin. The
 * page itself ships built in the package (dist/page). Every export here is public API: named exports only.
 */
export { WebClientError, WebClientErrorCode, WebClientOptionError } from './server/errors.js';
export { serveWebClient, type WebClientOptions, type WebClientServer } from './server/serve-web-client.js';
