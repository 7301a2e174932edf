/**
 * Public surface of @acpkit/cli. Every export here is public API: named exports only.
 */
export type { MainOptions } from './program.js';
export { main } from './program.js';
