import { defineConfig } from 'tsup';

export default defineConfig({
  // `internal` is what the CLIs and the repository's tests share with the package beyond its public surface.
  entry: ['src/index.ts', 'src/internal.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
});
