/**
 * Public surface of @acpkit/acpremote. Every export here is public API: named exports only.
 */
export type { MainOptions } from './program.js';
export { main } from './program.js';
