import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reliability',
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    restoreMocks: true,
    // Real processes, sockets and nginx: generous per-test limits, but each file keeps its own budget.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
