import { suiteProject, USES_SERVICES } from '../../config/vitest-preset.js';

export default suiteProject('test-support', {
  ...USES_SERVICES,
  include: ['src/**/*.test.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
