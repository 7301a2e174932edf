import { suiteProject, USES_SERVICES } from '../../config/vitest-preset.js';

export default suiteProject('reliability', {
  // nginx, HAProxy and Postgres.
  ...USES_SERVICES,
  exclude: ['**/node_modules/**'],
  // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
  isolate: false,
  // Real processes, sockets and nginx: generous per-test limits, but each file keeps its own budget.
  testTimeout: 120_000,
  hookTimeout: 60_000,
});
