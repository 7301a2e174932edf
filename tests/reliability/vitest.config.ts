import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reliability',
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    restoreMocks: true,
    // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
    isolate: false,
    // Real processes, sockets and nginx: generous per-test limits, but each file keeps its own budget.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
