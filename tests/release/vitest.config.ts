import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'release',
    include: ['test/**/*.test.ts'],
    restoreMocks: true,
    // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
