import { suiteProject } from '../../config/vitest-preset.js';

export default suiteProject('ai-sdk-v7', {
  testTimeout: 30_000,
  // The first run on a fresh machine fetches Node 22 from the npm registry (npx) before any test.
  hookTimeout: 180_000,
});
