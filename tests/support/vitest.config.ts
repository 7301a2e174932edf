import { suiteProject } from '../../config/vitest-preset.js';

export default suiteProject('test-support', {
  include: ['src/**/*.test.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
