// A vitest reporter that writes how long each test file took, from its worker's start to its last hook: vitest's JSON
// report only spans first test to last test, so a file that spends its time in `beforeAll` looks instant there.
//
//   vitest run --reporter=default --reporter=./scripts/test/file-timings-reporter.mjs
//
// It writes `ACPKIT_FILE_TIMINGS` (default `.test-output/file-timings.json`): `[{ project, file, seconds }]`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

// biome-ignore lint/style/noDefaultExport: vitest loads a reporter file through its default export.
export default class FileTimingsReporter {
  onTestRunEnd(testModules) {
    const output = resolve(
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by scripts/test-all.mjs; turbo never runs vitest.
      process.env.ACPKIT_FILE_TIMINGS || resolve(root, '.test-output', 'file-timings.json'),
    );
    const timings = testModules.map((testModule) => {
      const { prepareDuration, collectDuration, setupDuration, duration } = testModule.diagnostic();
      return {
        project: testModule.project.name,
        file: relative(root, testModule.moduleId),
        seconds: (prepareDuration + collectDuration + setupDuration + duration) / 1000,
      };
    });
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(timings, null, 2)}\n`);
  }
}
