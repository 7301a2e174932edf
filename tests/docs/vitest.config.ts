import { suiteProject } from '../../config/vitest-preset.js';

export default suiteProject('docs', {
  include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
  isolate: false,
  // One TypeScript program over every extracted block against the built declarations: seconds, not milliseconds.
  testTimeout: 120_000,
  hookTimeout: 180_000,
});
