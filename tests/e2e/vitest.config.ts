import { suiteProject, USES_SERVICES } from '../../config/vitest-preset.js';

export default suiteProject('e2e', {
  // The shared-session tests start a Postgres.
  ...USES_SERVICES,
  include: ['**/*.e2e.test.ts', '**/*.test.ts'],
  exclude: [
    '**/node_modules/**',
    // The test command's runs on its other Node lines leave out the files that test only our own logic
    // (scripts/test/node-runtimes.mjs, `e2eFilesOnThisNodeOnly`, says which and why): paths from the repository.
    ...(process.env.ACPKIT_E2E_EXCLUDE ?? '')
      .split(',')
      .filter(Boolean)
      .map((file) => new URL(`../../${file}`, import.meta.url).pathname),
  ],
  // A worker runs file after file (CONTRIBUTING.md, "Reused workers"): ~25 % less wall time for this suite, whose
  // files each spawn their processes through one support module that every file's hooks reap.
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
