import { packageProject, USES_SERVICES } from '../../config/vitest-preset.js';

// The browser test (one file, one Chromium) starts with the other long files (config/vitest-sequencer.ts) instead of
// in a group of its own after every other file, where it ran alone for a minute.
export default packageProject('web-client', {
  // Chromium.
  ...USES_SERVICES,
  isolate: true,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
