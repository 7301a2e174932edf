import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'choice-schema',
    include: ['src/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
    restoreMocks: true,
    testTimeout: 20_000,
  },
});
