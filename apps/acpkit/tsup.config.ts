import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  // The private @acpkit/cli-support and @acpkit/internal-branding packages are bundled in, so the published CLI
  // never depends on them.
  noExternal: ['@acpkit/cli-support', '@acpkit/internal-branding'],
});
