import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'docs',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
    isolate: false,
    // One TypeScript program over every extracted block against the built declarations: seconds, not milliseconds.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
