#!/usr/bin/env node
// The one test command: build, type-check, lint, every vitest project, the end-to-end suite again on the other live
// Node LTS lines, and the extra checks. Independent steps run at the same time (scripts/test/step-graph.mjs); each
// prints its output as one block when it ends. The command ends with the slowest test files and then the plain line
// `N passed, N failed` that CI reads: every vitest test counts once, and every other step counts as one test.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { otherNodeLines, resolveNodeBinary } from './test/node-runtimes.mjs';
import { runCommand, runStepGraph } from './test/step-graph.mjs';
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
const environment = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' };
// The test processes talk only to loopback servers (with their own certificates where TLS is tested), never to the
// registry: they start without a machine-wide NODE_EXTRA_CA_CERTS, which makes every Node start parse the whole CA
// bundle again (~45 ms of CPU on this machine class × ~2,000 processes a run). Steps that reach the registry (npx,
// release:check's npm install) keep it.
const { NODE_EXTRA_CA_CERTS: _registryCertificates, ...testEnvironment } = environment;
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
      const { code, signal, output } = await runCommand(command, {
        cwd: root,
        env: options.env ?? environment,
        log: join(outputDirectory, 'logs', `${name.replace(/[^\w.-]+/g, '-')}.log`),
      });
      return { ok: code === 0, output, detail: code === 0 ? '' : `exit ${code ?? signal}` };
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
      const { code, output } = await runCommand(run.command, {
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
        detail: `${counted.passed} passed, ${counted.failed} failed`,
      };
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
  commandStep('python interop venv', ['node', 'scripts/python-venv.mjs']),
  ...otherNodeLines.map((nodeLine) => ({
    name: nodeStepName(nodeLine),
    run: async () => {
      const { path, output } = await resolveNodeBinary(nodeLine.version, { cwd: root, env: environment });
      if (path) nodeBinaries.set(nodeLine.version, path);
      return { ok: path !== undefined, output: path ? '' : output, detail: path ?? 'npx failed' };
    },
  })),
];

// Real services the suites start themselves (never skipped: a missing one is a failure): nginx (the reliability
// suite's TLS reverse proxy), Postgres (the session stores, tests/support/src/postgres.ts) and Chromium (the web
// client's browser tests). CI machines start
// without them, so install Debian's packages here, inside the one test command, and only when they are missing.
const canAptInstall = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
/** An install step for a Debian package whose `check` shell command fails, or nothing when it succeeds. */
function debianPackageStep(name, check, install) {
  if (spawnSync('sh', ['-c', check], { env: environment }).status === 0) return [];
  return [
    canAptInstall
      ? commandStep(`install ${name}`, ['sh', '-c', `apt-get update -qq && ${install}`])
      : {
          name: `install ${name}`,
          run: async () => ({
            ok: false,
            detail: `${name} is missing and this user cannot apt-get install it: install ${name} first`,
          }),
        },
  ];
}
const aptInstall = (pkg) => `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkg}`;
// apt-get holds one lock, so the installs run one after the other.
const serviceSteps = [
  ...debianPackageStep(
    'nginx',
    'command -v nginx',
    `(${aptInstall('nginx-light')} || ${aptInstall('nginx')})`,
  ),
  ...debianPackageStep(
    'postgresql',
    'command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl',
    aptInstall('postgresql'),
  ),
  // The web client's browser tests (packages/web-client/test/*.browser.test.ts) drive it through playwright-core.
  ...debianPackageStep('chromium', 'command -v chromium', aptInstall('chromium')),
];
for (const [index, step] of serviceSteps.entries()) {
  if (index > 0) step.after = [serviceSteps[index - 1].name];
}
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
        // tests/ai-sdk-v7 runs ai 7 on Node 22: the binary the Node 22 step resolved (no npx inside the run).
        ...Object.fromEntries(
          otherNodeLines
            .filter((nodeLine) => nodeBinaries.has(nodeLine.version))
            .map((nodeLine) => [`ACPKIT_NODE_${nodeLine.line}_BINARY`, nodeBinaries.get(nodeLine.version)]),
        ),
        [TYPECHECK_CHECKER_VARIABLE]: join(root, 'scripts', 'test', 'typecheck-results-checker.mjs'),
        [TYPECHECK_RESULTS_VARIABLE]: typecheckResults,
      },
    }),
    {
      needs: ['build'],
      after: [
        'python interop venv',
        ...otherNodeLines.map(nodeStepName),
        ...serviceSteps.map((step) => step.name),
      ],
      heavy: true,
    },
  ),
  // The end-to-end suite (the built CLIs in real processes) on each other Node line: vitest itself runs on that
  // Node, so `process.execPath` and every `node` on PATH the tests start is that version.
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
          },
        };
      },
      // The e2e suite starts Postgres for the shared-session tests.
      { needs: ['build', nodeStepName(nodeLine)], after: serviceSteps.map((step) => step.name), heavy: true },
    ),
  ),

  // Packs every public package, installs the tarballs with npm into a fresh project and uses them there, on this
  // Node and on each other Node line.
  {
    name: 'release:check',
    needs: ['build'],
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
console.log(`\nThe test command took ${((Date.now() - started) / 1000).toFixed(0)} s.`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
