import { packageProject } from '../../config/vitest-preset.js';

// The browser tests share one Chromium per file; files run one after another so two browsers never compete for the
// machine's cores.
export default packageProject('web-client', {
  isolate: true,
  fileParallelism: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
