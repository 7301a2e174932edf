import { suiteProject } from '../../config/vitest-preset.js';

export default suiteProject('interop-python', {
  exclude: ['**/node_modules/**', '.venv/**'],
  // Builds (or reuses) the project-local venv of the real Python ACP Kit once; a failure reaches every test.
  globalSetup: ['./test/support/global-setup.ts'],
  // In the test command each file waits for its venv step instead (the global setup would hold every project).
  setupFiles: ['./test/support/venv-ready.ts'],
  // A worker runs file after file (CONTRIBUTING.md, "Reused workers").
  isolate: false,
  // Real Python and Node processes and sockets on a shared 2-core machine: generous limits.
  testTimeout: 120_000,
  hookTimeout: 180_000,
});
