#!/usr/bin/env node
// The one test command: build, type-check, lint, run every vitest project, then the extra checks.
// It ends with the plain line `N passed, N failed` that CI reads (vitest's own summary is not read by CI):
// every vitest test counts once, and every other step counts as one test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outputDirectory = join(root, '.test-output');
const vitestReport = join(outputDirectory, 'vitest.json');
const environment = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' };

/** Steps that count as one test each. Keep them cheap; heavy checks belong in vitest projects. */
const steps = [
  { name: 'build', command: ['pnpm', 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only'] },
  { name: 'typecheck', command: ['pnpm', 'exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only'] },
  { name: 'lint', command: ['pnpm', 'exec', 'biome', 'ci', '.', '--colors=off'] },
];
const afterTestSteps = [
  // Short interleaved bench with wide same-run guards (RTT, msg/s and 16 MiB within 4x of the minimal relay/chain).
  { name: 'bench:smoke', command: ['pnpm', 'run', 'bench:smoke'] },
  // Packs every public package, installs the tarballs with npm into a fresh project and uses them there.
  { name: 'release:check', command: ['pnpm', 'run', 'release:check'] },
  // The README's first command, exactly as a newcomer runs it, without a terminal: it must exit 0
  // (tests/e2e/demo-*.test.ts check that "Selected: production" comes back and that no process survives).
  { name: 'demo (non-TTY)', command: ['pnpm', 'demo'], stdin: 'ignore' },
];

let passed = 0;
let failed = 0;
const failures = [];

function runStep(step) {
  const started = Date.now();
  console.log(`\n==> ${step.name}: ${step.command.join(' ')}`);
  const result = spawnSync(step.command[0], step.command.slice(1), {
    cwd: root,
    stdio: [step.stdin ?? 'inherit', 'inherit', 'inherit'],
    env: environment,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    passed += 1;
    console.log(`<== ${step.name}: ok (${seconds} s)`);
    return true;
  }
  failed += 1;
  failures.push(step.name);
  console.log(`<== ${step.name}: FAILED with ${result.status ?? result.signal} (${seconds} s)`);
  return false;
}

const buildOk = runStep(steps[0]);
for (const step of steps.slice(1)) runStep(step);

// The reliability suite runs a real nginx (TLS reverse proxy); CI machines start without it, so install Debian's
// package here, inside the one test command, and only when it is missing. Never skipped: no nginx is a failure.
if (spawnSync('sh', ['-c', 'command -v nginx'], { env: environment }).status !== 0) {
  const canInstall = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
  if (canInstall) {
    runStep({
      name: 'install nginx',
      command: [
        'sh',
        '-c',
        'apt-get update -qq && (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx)',
      ],
    });
  } else {
    failed += 1;
    failures.push(
      'install nginx (nginx is not on PATH and apt-get as root is unavailable: install nginx first)',
    );
    console.log('\n==> install nginx: FAILED: nginx is not on PATH and this user cannot apt-get install it');
  }
}

// tests/interop-python runs the real Python ACP Kit (acpkit, acpremote, pydantic-acp 1.10) from a project-local venv
// in a git-ignored folder: built once from the committed lock file, then reused until the lock changes. A failed
// install fails this step with pip's output, and the interop tests then fail with it too (never skipped).
runStep({ name: 'python interop venv', command: ['node', 'scripts/python-venv.mjs'] });

if (buildOk) {
  rmSync(vitestReport, { force: true });
  mkdirSync(outputDirectory, { recursive: true });
  const started = Date.now();
  console.log('\n==> vitest');
  const result = spawnSync(
    'pnpm',
    ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`],
    { cwd: root, stdio: 'inherit', env: environment },
  );
  console.log(
    `<== vitest exited ${result.status ?? result.signal} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  if (existsSync(vitestReport)) {
    const report = JSON.parse(readFileSync(vitestReport, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    for (const file of report.testResults ?? []) {
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed') failures.push(`${file.name.replace(root, '')} > ${test.fullName}`);
      }
      // A file that failed to load has no assertions but still failed.
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
        failed += 1;
        failures.push(
          `${file.name.replace(root, '')} (failed to run: ${String(file.message).slice(0, 200)})`,
        );
      }
    }
    if (result.status !== 0 && report.numFailedTests === 0 && !failures.length) {
      failed += 1;
      failures.push(`vitest exited ${result.status} without a failed test`);
    }
  } else {
    failed += 1;
    failures.push('vitest (no report written)');
  }
  for (const step of afterTestSteps) runStep(step);
} else {
  failed += 1;
  failures.push('vitest (skipped: build failed)');
}

if (failures.length) {
  console.log('\nFailed:');
  for (const name of failures) console.log(`  - ${name}`);
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
