import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'example-langchain-agent',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    restoreMocks: true,
    testTimeout: 20_000,
  },
});
