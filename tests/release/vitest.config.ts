import { suiteProject } from '../../config/vitest-preset.js';

export default suiteProject('release', {
  // A worker runs file after file instead of starting afresh for each (CONTRIBUTING.md, "Reused workers").
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
