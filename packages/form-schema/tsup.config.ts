import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'neutral',
  dts: true,
  sourcemap: true,
  clean: true,
  // The private branding helper is bundled in: the published package never depends on it.
  noExternal: ['@acpkit/internal-branding'],
});
