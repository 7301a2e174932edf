// One vitest run of the test command: its command line, and what its reports say (tests passed and failed, failures
// by name, how long each file took).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @typedef {object} VitestRun
 * @property {string} label shown next to each failure and timing (e.g. `Node 24.21.0`), '' for the main run
 * @property {string[]} command
 * @property {string} report vitest's JSON report
 * @property {string} timings the per-file timings of file-timings-reporter.mjs
 * @property {Record<string, string>} env what the run's environment needs on top (where the timings go)
 */

/**
 * The command of a vitest run with its two reports.
 * @param {{ root: string; outputDirectory: string; name: string; label: string; node?: string; args?: string[] }} options
 * @returns {VitestRun}
 */
export function vitestRun({ root, outputDirectory, name, label, node = process.execPath, args = [] }) {
  const report = join(outputDirectory, `${name}.json`);
  const timings = join(outputDirectory, `${name}-file-timings.json`);
  rmSync(report, { force: true });
  rmSync(timings, { force: true });
  return {
    label,
    report,
    timings,
    env: { ACPKIT_FILE_TIMINGS: timings },
    command: [
      node,
      join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...args,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      `--reporter=${join(root, 'scripts', 'test', 'file-timings-reporter.mjs')}`,
    ],
  };
}

/**
 * Counts a finished run: every vitest test counts once; a file that failed to load, a run that wrote no report or
 * exited non-zero without a failed test counts as one failure.
 * @param {VitestRun} run
 * @param {number | null} exitCode
 * @param {string} root
 * @returns {{ passed: number; failed: number; failures: string[]; timings: Array<{ file: string; seconds: number }> }}
 */
export function readVitestRun(run, exitCode, root) {
  const suffix = run.label ? ` [${run.label}]` : '';
  if (!existsSync(run.report)) {
    return { passed: 0, failed: 1, failures: [`vitest${suffix} (no report written)`], timings: [] };
  }
  const report = JSON.parse(readFileSync(run.report, 'utf8'));
  let failed = report.numFailedTests;
  const failures = [];
  for (const file of report.testResults ?? []) {
    const name = file.name.replace(root, '');
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'failed') failures.push(`${name} > ${test.fullName}${suffix}`);
    }
    // A file that failed outside its tests (an import, or a hook: its tests are then reported skipped) counts once.
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed')) {
      failed += 1;
      failures.push(`${name}${suffix} (failed outside its tests: ${String(file.message).slice(0, 200)})`);
    }
  }
  if (exitCode !== 0 && failed === 0) {
    failed += 1;
    failures.push(`vitest${suffix} exited ${exitCode} without a failed test`);
  }
  const timings = existsSync(run.timings)
    ? JSON.parse(readFileSync(run.timings, 'utf8')).map((timing) => ({
        file: `${timing.file}${suffix}`,
        seconds: timing.seconds,
      }))
    : [];
  return { passed: report.numPassedTests, failed, failures, timings };
}
