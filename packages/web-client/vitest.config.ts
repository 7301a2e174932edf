import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'web-client',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    // The browser tests share one Chromium per file; files run one after another so two browsers never compete for
    // the machine's cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
