import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'ai-sdk-v7',
    include: ['test/**/*.test.ts'],
    restoreMocks: true,
    testTimeout: 30_000,
    // The first run on a fresh machine fetches Node 22 from the npm registry (npx) before any test.
    hookTimeout: 180_000,
  },
});
