import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'internal-branding',
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
  },
});
