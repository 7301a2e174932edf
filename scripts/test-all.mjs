#!/usr/bin/env node
// The one test command: build, type-check, lint, every vitest project, the end-to-end suite again on the other live
// Node LTS lines, and the extra checks. Independent steps run at the same time (scripts/test/step-graph.mjs); each
// prints its output as one block when it ends. The command ends with the slowest test files and then the plain line
// `N passed, N failed` that CI reads: every vitest test counts once, and every other step counts as one test.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import {
  E2E_EXCLUDE_VARIABLE,
  e2eFilesOnThisNodeOnly,
  otherNodeLines,
  resolveNodeBinary,
} from './test/node-runtimes.mjs';
import { runCommand, runStepGraph } from './test/step-graph.mjs';
import { markStepEnded, STEP_MARKERS_VARIABLE } from './test/step-markers.mjs';
import {
  markTypecheckEnded,
  TYPECHECK_CHECKER_VARIABLE,
  TYPECHECK_RESULTS_VARIABLE,
} from './test/typecheck-results.mjs';
import { readVitestRun, vitestRun } from './test/vitest-runs.mjs';

const started = Date.now();
const root = new URL('..', import.meta.url).pathname;
const outputDirectory = join(root, '.test-output');
mkdirSync(outputDirectory, { recursive: true });
const environment = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  FORCE_COLOR: '0',
  // Every build of this command (its build step, the demo's, release:check's, bench's) builds the JavaScript only; the
  // typecheck step writes the declarations from the program that type-checks each package (scripts/declarations.mjs).
  ACPKIT_BUILD_DECLARATIONS: 'typecheck',
};
// The test processes talk only to loopback servers (with their own certificates where TLS is tested), never to the
// registry: they start without a machine-wide NODE_EXTRA_CA_CERTS, which makes every Node start parse the whole CA
// bundle again (~45 ms of CPU on this machine class × ~2,000 processes a run). Steps that reach the registry (npx,
// release:check's npm install) keep it.
const { NODE_EXTRA_CA_CERTS: _registryCertificates, ...registryFreeEnvironment } = environment;
// Set-up steps a test may need (the services, the Python venv, the other Node lines) mark their end in this folder;
// the vitest runs do not wait for them, the tests that need one do (scripts/test/step-markers.mjs).
const stepMarkers = join(outputDirectory, 'steps');
rmSync(stepMarkers, { recursive: true, force: true });
const testEnvironment = { ...registryFreeEnvironment, [STEP_MARKERS_VARIABLE]: stepMarkers };
// The typecheck step's result per package, which the main vitest run's type tests read
// (scripts/test/typecheck-results.mjs).
const typecheckResults = join(outputDirectory, 'typecheck');
rmSync(typecheckResults, { recursive: true, force: true });

let passed = 0;
let failed = 0;
const failures = [];
/** @type {Array<{ file: string; seconds: number }>} */
const fileTimings = [];

/** A step that runs one command; it passes when the command exits 0. */
function commandStep(name, command, options = {}) {
  return {
    name,
    ...options,
    run: async () => {
      const { code, signal, output, cpuSeconds } = await runCommand(command, {
        cwd: root,
        env: options.env ?? environment,
        log: join(outputDirectory, 'logs', `${name.replace(/[^\w.-]+/g, '-')}.log`),
      });
      return { ok: code === 0, output, cpuSeconds, detail: code === 0 ? '' : `exit ${code ?? signal}` };
    },
  };
}

/**
 * A step that runs vitest and counts its tests instead of itself. `prepare` is called when the step starts (after
 * the steps it needs), so it can use what they found.
 * @param {string} name
 * @param {() => { run: import('./test/vitest-runs.mjs').VitestRun; env?: NodeJS.ProcessEnv }} prepare
 */
function vitestStep(name, prepare, options = {}) {
  return {
    name,
    ...options,
    countsTests: true,
    run: async () => {
      const { run, env = environment } = prepare();
      const { code, output, cpuSeconds } = await runCommand(run.command, {
        cwd: root,
        env: { ...env, ...run.env },
        log: join(outputDirectory, 'logs', `${name.replace(/[^\w.-]+/g, '-')}.log`),
      });
      const counted = readVitestRun(run, code, root);
      passed += counted.passed;
      failed += counted.failed;
      failures.push(...counted.failures);
      fileTimings.push(...counted.timings);
      return {
        ok: counted.failed === 0,
        output,
        cpuSeconds,
        detail: `${counted.passed} passed, ${counted.failed} failed`,
      };
    },
  };
}

/**
 * The suites that compile against or read the packages' `dist/*.d.ts`, which the typecheck step writes (the build
 * writes JavaScript only): they run in a vitest run of their own after it, while the main run starts with the build.
 */
const declarationSuites = [
  { folder: 'tests/docs', project: 'docs' },
  { folder: 'tests/release', project: 'release' },
];

/**
 * `step`, marking its end for the tests that wait for it (`waitForStep(key)`): passed or not, with its detail.
 * @template {{ run: () => Promise<{ ok: boolean; detail?: string }> }} S
 * @param {string} key @param {S} step @returns {S}
 */
function marked(key, step) {
  return {
    ...step,
    run: async () => {
      let result = { ok: false, detail: 'the step crashed' };
      try {
        result = await step.run();
        return result;
      } finally {
        markStepEnded(stepMarkers, key, { ok: result.ok, detail: result.detail ?? '' });
      }
    },
  };
}

/** The binaries of the other Node lines, filled in by their steps. */
const nodeBinaries = new Map();
const nodeStepName = ({ version }) => `Node ${version} from the npm registry`;

const steps = [
  commandStep('build', ['pnpm', 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    heavy: true,
  }),
  {
    name: 'typecheck',
    needs: ['build'],
    heavy: true,
    run: async () => {
      try {
        return await commandStep('typecheck', [
          'node',
          'scripts/typecheck.mjs',
          '--declarations',
          '--results',
          typecheckResults,
        ]).run();
      } finally {
        markTypecheckEnded(typecheckResults);
      }
    },
  },
  commandStep('lint', ['pnpm', 'exec', 'biome', 'ci', '.', '--colors=off']),
  // tests/interop-python runs the real Python ACP Kit (acpkit, acpremote, pydantic-acp 1.10) from a project-local
  // venv in a git-ignored folder: built once from the committed lock file, then reused until the lock changes. A
  // failed install fails this step with pip's output, and the interop tests then fail with it too (never skipped).
  marked('python-venv', commandStep('python interop venv', ['node', 'scripts/python-venv.mjs'])),
  // Its detail is the binary's path, which tests/ai-sdk-v7 waits for.
  ...otherNodeLines.map((nodeLine) =>
    marked(`node-${nodeLine.line}`, {
      name: nodeStepName(nodeLine),
      run: async () => {
        const { path, output, cpuSeconds } = await resolveNodeBinary(nodeLine.version, {
          cwd: root,
          env: environment,
        });
        if (path) nodeBinaries.set(nodeLine.version, path);
        return {
          ok: path !== undefined,
          output: path ? '' : output,
          cpuSeconds,
          detail: path ?? 'npx failed',
        };
      },
    }),
  ),
];

const aptInstall = (...packages) =>
  `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')}`;

/**
 * @typedef {object} Service a real service the tests need, installed with Debian's apt when missing
 * @property {string} name
 * @property {string} present a shell test that passes when it is installed
 * @property {string} install the shell command that installs it (apt's index already updated)
 * @property {string} missing what to do when it is missing and this user cannot install it
 */
/** @type {Service[]} Real services the suites run, installed inside the one test command when missing. */
const services = [
  // The reliability suite's TLS reverse proxy.
  {
    name: 'nginx',
    present: 'command -v nginx',
    install: `(${aptInstall('nginx-light')} || ${aptInstall('nginx')})`,
    missing: 'nginx is not on PATH and this user cannot apt-get install it: install nginx first',
  },
  // The reliability suite's second load balancer: the docs' HAProxy configuration, run live.
  {
    name: 'haproxy',
    present: 'command -v haproxy || test -x /usr/sbin/haproxy',
    install: aptInstall('haproxy'),
    missing: 'haproxy is not installed and this user cannot apt-get install it: install haproxy first',
  },
  // The session stores' tests and bench (tests/support/src/postgres.ts starts a throwaway server).
  {
    name: 'postgresql',
    present: 'command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl',
    install: aptInstall('postgresql'),
    missing: 'PostgreSQL is not installed and this user cannot apt-get install it: install postgresql first',
  },
  // The web client's browser tests (packages/web-client/test/*.browser.test.ts), driven through playwright-core.
  {
    name: 'chromium',
    present: 'command -v chromium',
    install: aptInstall('chromium'),
    missing: 'chromium is not on PATH and this user cannot apt-get install it: install chromium first',
  },
];

/**
 * One step that installs every missing service with apt, its index updated once (not once per service), or no step
 * when all are present. Never skipped: a service that is missing and cannot be installed is a failure. Marked, passed
 * or not, so the tests that wait for it never wait forever.
 * @param {Service[]} all
 */
function serviceInstallSteps(all) {
  const missing = all.filter(
    ({ present }) => spawnSync('sh', ['-c', present], { env: environment }).status !== 0,
  );
  if (missing.length === 0) return [];
  const name = `install ${missing.map((service) => service.name).join(', ')}`;
  const canInstall = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
  if (!canInstall) {
    const detail = missing.map((service) => service.missing).join('; ');
    return [marked('services', { name, run: async () => ({ ok: false, detail }) })];
  }
  const install = missing.map((service) => service.install).join(' && ');
  return [marked('services', commandStep(name, ['sh', '-c', `apt-get update -qq && ${install}`]))];
}
const serviceSteps = serviceInstallSteps(services);
if (serviceSteps.length === 0) markStepEnded(stepMarkers, 'services', { ok: true, detail: 'all installed' });
steps.push(...serviceSteps);

steps.push(
  // Its type tests (`*.test-d.ts`) take their package's `tsc --noEmit` result from the typecheck step, which needs
  // the same build, instead of a second `tsc` per package (scripts/test/typecheck-results-checker.mjs).
  vitestStep(
    'vitest',
    () => ({
      run: vitestRun({ root, outputDirectory, name: 'vitest', label: '' }),
      env: {
        ...testEnvironment,
        // Those run in the next step, once the declarations they read are written.
        ACPKIT_VITEST_LEAVE_OUT: declarationSuites.map(({ folder }) => folder).join(','),
        [TYPECHECK_CHECKER_VARIABLE]: join(root, 'scripts', 'test', 'typecheck-results-checker.mjs'),
        [TYPECHECK_RESULTS_VARIABLE]: typecheckResults,
      },
    }),
    {
      // Nothing but the build: the type tests (`*.test-d.ts`) wait for their package's typecheck result, the tests
      // that need a service, the Python venv or another Node line wait for its step (step-markers.mjs), and the suites
      // that read the declarations the typecheck step writes are the next step.
      needs: ['build'],
      heavy: true,
    },
  ),
  vitestStep(
    'vitest docs and release',
    () => ({
      run: vitestRun({
        root,
        outputDirectory,
        name: 'vitest-declarations',
        label: '',
        args: declarationSuites.flatMap(({ project }) => ['--project', project]),
      }),
      env: testEnvironment,
    }),
    { needs: ['build', 'typecheck'], after: serviceSteps.map((step) => step.name), heavy: true },
  ),
  // The end-to-end suite (the built CLIs in real processes) on each other Node line: vitest itself runs on that
  // Node, so `process.execPath` and every `node` on PATH the tests start is that version. All of it but the few
  // files of `e2eFilesOnThisNodeOnly`.
  ...otherNodeLines.map((nodeLine) =>
    vitestStep(
      `vitest e2e on Node ${nodeLine.version}`,
      () => {
        const node = nodeBinaries.get(nodeLine.version);
        return {
          run: vitestRun({
            root,
            outputDirectory,
            name: `vitest-e2e-node${nodeLine.line}`,
            label: `Node ${nodeLine.version}`,
            node,
            // Two files at a time: these runs share the machine with the main one.
            args: ['--project', 'e2e', '--maxWorkers=2'],
          }),
          env: {
            ...testEnvironment,
            PATH: `${dirname(node)}${delimiter}${environment.PATH}`,
            // Node 22+ keeps compiled code for the ~700 processes this suite starts (CLIs, agents, vitest): 18 % less
            // CPU for the run, measured on Node 24 (Node 20, the main run's, has no such cache). One per Node line,
            // kept between runs (Node checks each entry against the source it compiled).
            NODE_COMPILE_CACHE: join(outputDirectory, `node-compile-cache-${nodeLine.line}`),
            // The files that test only our own logic through the CLIs run once, in the main run (node-runtimes.mjs
            // says which and why); tests/e2e/vitest.config.ts leaves them out.
            [E2E_EXCLUDE_VARIABLE]: e2eFilesOnThisNodeOnly.map(({ file }) => file).join(','),
          },
        };
      },
      // Its shared-session tests start a Postgres: they wait for the services' step themselves.
      { needs: ['build', nodeStepName(nodeLine)], heavy: true },
    ),
  ),

  // Packs every public package, installs the tarballs with npm into a fresh project and uses them there, on this
  // Node and on each other Node line.
  {
    name: 'release:check',
    // It packs the declarations the typecheck step wrote.
    needs: ['build', 'typecheck'],
    after: otherNodeLines.map(nodeStepName),
    heavy: true,
    run: () =>
      commandStep('release:check', [
        'pnpm',
        'run',
        'release:check',
        ...[...nodeBinaries.values()].flatMap((path) => ['--node', path]),
      ]).run(),
  },
  // The README's first command, exactly as a newcomer runs it, without a terminal: it must exit 0
  // (tests/e2e/demo-*.test.ts check that "Selected: production" comes back and that no process survives).
  commandStep('demo (non-TTY)', ['pnpm', 'demo'], { needs: ['build'] }),
);

// Short interleaved bench with wide same-run guards (RTT, msg/s and 16 MiB within 4x of the minimal relay/chain).
// It measures speed, so it runs last, once every other heavy step has ended and the machine is quiet.
steps.push(
  commandStep('bench:smoke', ['pnpm', 'run', 'bench:smoke'], {
    needs: ['build'],
    after: steps.filter((step) => step.heavy && step.name !== 'build').map((step) => step.name),
    heavy: true,
  }),
);

// `node scripts/test-all.mjs --list`: the steps and what each waits for, without running them.
if (process.argv.includes('--list')) {
  for (const step of steps) {
    const waits = [
      ...(step.needs ?? []).map((name) => `needs ${name}`),
      ...(step.after ?? []).map((name) => `after ${name}`),
    ];
    console.log(`${step.name}${step.heavy ? ' (heavy)' : ''}${waits.length ? `: ${waits.join(', ')}` : ''}`);
  }
  process.exit(0);
}

// Heavy steps start in the order listed when a slot frees: the longest (vitest) first.
const results = await runStepGraph(steps, { heavySlots: 3, started });
for (const step of steps) {
  const result = results.get(step.name);
  if (step.countsTests && !result.skipped) continue;
  if (result.ok) {
    passed += 1;
  } else {
    failed += 1;
    failures.push(result.detail ? `${step.name} (${result.detail})` : step.name);
  }
}

if (failures.length) {
  console.log('\nFailed:');
  for (const name of failures) console.log(`  - ${name}`);
}
console.log(`\nThe slowest test files (seconds from worker start to last hook; files run in parallel):`);
for (const { file, seconds } of fileTimings
  .sort((left, right) => right.seconds - left.seconds)
  .slice(0, 10)) {
  console.log(`  ${seconds.toFixed(1).padStart(6)}  ${file}`);
}
const cpuSeconds = [...results.values()].reduce((sum, result) => sum + (result.cpuSeconds ?? 0), 0);
const ownCpu = process.cpuUsage();
console.log(
  `\nThe test command took ${((Date.now() - started) / 1000).toFixed(0)} s and ` +
    `${(cpuSeconds + (ownCpu.user + ownCpu.system) / 1e6).toFixed(0)} CPU-s (its steps' processes and itself).`,
);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
