import { defineConfig } from 'tsup';

export default defineConfig({
  // The drivers live in their own entries, so the main entry never imports `pg` or `better-sqlite3`.
  entry: ['src/index.ts', 'src/sqlite.ts', 'src/postgres.ts', 'src/testing.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  external: ['better-sqlite3', 'pg', 'vitest'],
  dts: true,
  sourcemap: true,
  clean: true,
});
