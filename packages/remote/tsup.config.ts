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
  // The private @acpkit/internal-branding (error markers) is bundled in, so the published package never depends on it.
  noExternal: ['@acpkit/internal-branding'],
});
