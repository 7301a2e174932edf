import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sessions',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    // Each file starts its own Postgres or SQLite file; a worker may still run file after file.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
