import { defineConfig } from 'tsup';

export default defineConfig({
  // `internal` is the code @acpkit/cli shares with the test client (form reading, answer rules, the agent process).
  entry: ['src/index.ts', 'src/internal.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
});
