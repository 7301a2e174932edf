import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'ai-sdk',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
    restoreMocks: true,
    testTimeout: 20_000,
  },
});
