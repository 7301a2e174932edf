import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  // The private @acpkit/cli-support package is bundled in, so the published CLI never depends on it.
  noExternal: ['@acpkit/cli-support'],
});
