import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  // The private @acpkit/cli-support is bundled in, so the published CLI never depends on it: its code by noExternal,
  // and the types the public API uses from it (MainOptions) by pointing the declaration bundler at its source (through
  // node_modules it would count as an external library and stay an import). What it imports from public packages
  // (@acpkit/errors, @acpkit/remote) stays an import: they are dependencies of the CLI.
  dts: { compilerOptions: { paths: { '@acpkit/cli-support': ['../cli-support/src/index.ts'] } } },
  sourcemap: true,
  clean: true,
  noExternal: ['@acpkit/cli-support'],
});
