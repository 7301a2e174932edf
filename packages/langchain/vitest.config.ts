import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'langchain',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: {
      enabled: true,
      include: ['src/**/*.test-d.ts'],
      // The test command sets a checker that reuses its typecheck step's `tsc --noEmit` of this package
      // (scripts/test/typecheck-results-checker.mjs); elsewhere vitest runs `tsc`.
      checker: process.env.ACPKIT_TYPECHECK_CHECKER ?? 'tsc',
    },
    restoreMocks: true,
    // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
    isolate: false,
    testTimeout: 20_000,
  },
});
